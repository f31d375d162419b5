/* SPDX-License-Identifier: GPL-2.0-only */
/* test_cpu_avoid.c: the drain thread kept off one CPU: cpu_avoid takes the
 * CPU it runs on out of its affinity (and the kernel moves it off before the
 * call returns), once: not again for that CPU, nor for another sooner than
 * CPU_AVOID_INTERVAL_NS after (by the time it is given), then for the other,
 * the first given back; cpu_avoid_end gives back the affinity it began with.
 * A thread of one CPU, a CPU out of range and one the thread may not run on
 * change nothing; an affinity another gives the thread is kept (one CPU:
 * nowhere to go). A thread kept off a CPU that waits to run more than half
 * the time on the others (it shares the one left with two spinners) is given
 * back all of them by cpu_avoid_starved, not before CPU_AVOID_CHECK_NS since
 * it moved, and moves again no sooner than CPU_AVOID_BACKOFF_NS after; one
 * kept off none is left as it is. Each check runs in a thread of its own,
 * whose affinity ends with it: the test's main thread keeps its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "sys/cpu_avoid.h"

/* What a check's thread found: cmocka's asserts end a test by a longjmp,
 * which must be made on the thread that runs it; the thread notes its first
 * failure (or why it cannot run here), the test's thread reports it. */
struct outcome {
	const char *failed;
	int line;
	const char *skip;
};

#define CHECK(o, cond)                                 \
	do {                                           \
		if (!(cond) && !(o)->failed) {         \
			(o)->failed = #cond;           \
			(o)->line = __LINE__;          \
		}                                      \
	} while (0)

static void run_in_thread(void *(*check)(void *))
{
	struct outcome o = { NULL, 0, NULL };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, check, &o), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (o.failed)
		fail_msg("%s:%d: %s", __FILE__, o.line, o.failed);
	if (o.skip) {
		/* (a property of the machine, not of its setup: no tu_skip) */
		print_message("SKIP: %s\n", o.skip);
		skip();
	}
}

/* The first CPU of set other than but, or -1. */
static int other_cpu(const cpu_set_t *set, int but)
{
	int i;

	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != but && CPU_ISSET(i, set))
			return i;
	return -1;
}

static bool own_mask(cpu_set_t *mask)
{
	return !sched_getaffinity(0, sizeof(*mask), mask);
}

static void *avoid_move_and_end(void *arg)
{
	struct outcome *o = arg;
	struct cpu_avoid a;
	cpu_set_t orig, mask, want;
	int c, d;

	if (!own_mask(&orig)) {
		o->failed = "sched_getaffinity";
		return NULL;
	}
	if (CPU_COUNT(&orig) < 2) {
		o->skip = "the test may run on one CPU only";
		return NULL;
	}
	cpu_avoid_init(&a);
	CHECK(o, a.nr_allowed == CPU_COUNT(&orig));
	CHECK(o, a.avoided == -1);
	c = sched_getcpu();
	CHECK(o, c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &orig));
	if (o->failed)
		return NULL;

	CHECK(o, cpu_avoid(&a, c, 1000));
	/* off c at once (the kernel moves the caller before it returns) */
	CHECK(o, sched_getcpu() != c);
	want = orig;
	CPU_CLR(c, &want);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &want));
	CHECK(o, a.avoided == c);
	CHECK(o, a.moves == 1);

	/* off c already, however late */
	CHECK(o, !cpu_avoid(&a, c, 1000 + 2 * CPU_AVOID_INTERVAL_NS));

	/* another CPU: not before the interval is past, then at once */
	d = other_cpu(&orig, c);
	CHECK(o, !cpu_avoid(&a, d, 1000 + CPU_AVOID_INTERVAL_NS - 1));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &want));
	CHECK(o, a.avoided == c && a.moves == 1);
	CHECK(o, cpu_avoid(&a, d, 1000 + CPU_AVOID_INTERVAL_NS));
	CHECK(o, sched_getcpu() != d);
	want = orig;
	CPU_CLR(d, &want);
	CHECK(o, own_mask(&mask) && CPU_ISSET(c, &mask) && !CPU_ISSET(d, &mask));
	CHECK(o, CPU_EQUAL(&mask, &want));
	CHECK(o, a.avoided == d && a.moves == 2);

	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	CHECK(o, a.avoided == -1);
	return NULL;
}

static void test_avoid_move_and_end(void **state)
{
	(void)state;
	run_in_thread(avoid_move_and_end);
}

static void *one_cpu_stays(void *arg)
{
	struct outcome *o = arg;
	struct cpu_avoid a, before;
	cpu_set_t orig, one, mask;
	int c, d;

	if (!own_mask(&orig)) {
		o->failed = "sched_getaffinity";
		return NULL;
	}
	c = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	CHECK(o, c >= 0 && !sched_setaffinity(0, sizeof(one), &one));
	if (o->failed)
		return NULL;
	cpu_avoid_init(&a);
	CHECK(o, a.nr_allowed == 1);
	before = a;
	CHECK(o, !cpu_avoid(&a, c, 1000));
	CHECK(o, !cpu_avoid(&a, c, 1000 + 2 * CPU_AVOID_INTERVAL_NS));
	d = other_cpu(&orig, c);
	if (d >= 0)
		CHECK(o, !cpu_avoid(&a, d, 1000));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
	CHECK(o, sched_getcpu() == c);
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
	return NULL;
}

static void test_one_cpu_stays(void **state)
{
	(void)state;
	run_in_thread(one_cpu_stays);
}

static void *bad_cpus_change_nothing(void *arg)
{
	struct outcome *o = arg;
	struct cpu_avoid a, before;
	cpu_set_t orig, mask;
	int i, absent = -1;

	if (!own_mask(&orig)) {
		o->failed = "sched_getaffinity";
		return NULL;
	}
	if (CPU_COUNT(&orig) < 2) {
		o->skip = "the test may run on one CPU only";
		return NULL;
	}
	cpu_avoid_init(&a);
	before = a;
	CHECK(o, !cpu_avoid(&a, -1, 1000));
	CHECK(o, !cpu_avoid(&a, CPU_SETSIZE, 1000));
	CHECK(o, !cpu_avoid(&a, INT_MAX, 1000));
	/* a CPU number not in the mask (the machine may have no such CPU) */
	for (i = CPU_SETSIZE - 1; i >= 0 && absent < 0; i--)
		if (!CPU_ISSET(i, &orig))
			absent = i;
	if (absent >= 0)
		CHECK(o, !cpu_avoid(&a, absent, 1000));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	/* the same state and time with the CPU it runs on: it moves */
	CHECK(o, cpu_avoid(&a, sched_getcpu(), 1000));
	return NULL;
}

static void test_bad_cpus_change_nothing(void **state)
{
	(void)state;
	run_in_thread(bad_cpus_change_nothing);
}

/* An affinity another gives the thread (taskset -p) is where it may run from
 * then on: one CPU, nowhere to go; all of them again, it moves off one. */
static void *affinity_from_outside_kept(void *arg)
{
	struct outcome *o = arg;
	struct cpu_avoid a;
	cpu_set_t orig, mask, one;
	int c;

	if (!own_mask(&orig)) {
		o->failed = "sched_getaffinity";
		return NULL;
	}
	if (CPU_COUNT(&orig) < 2) {
		o->skip = "one CPU: nowhere to move";
		return NULL;
	}
	cpu_avoid_init(&a);
	c = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	CHECK(o, !sched_setaffinity(0, sizeof(one), &one));
	CHECK(o, !cpu_avoid(&a, c, 1000));
	CHECK(o, a.nr_allowed == 1);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
	CHECK(o, !sched_setaffinity(0, sizeof(orig), &orig));
	CHECK(o, cpu_avoid(&a, c, 1000));
	CHECK(o, a.nr_allowed == CPU_COUNT(&orig));
	CHECK(o, own_mask(&mask) && !CPU_ISSET(c, &mask) && CPU_COUNT(&mask) == CPU_COUNT(&orig) - 1);
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	return NULL;
}

static void test_affinity_from_outside_kept(void **state)
{
	(void)state;
	run_in_thread(affinity_from_outside_kept);
}

/* The calling thread's schedstat: the time it ran (as of its last tick or
 * switch) and waited to run, in ns; false if it cannot be read. */
static bool schedstat(unsigned long long *run, unsigned long long *delay)
{
	char buf[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", run, delay) == 2;
}

/* How long the test's thread runs beside the spinners: it waits ~2/3 of it
 * (more on a busy machine), cpu_avoid_starved gives up past 1/2. */
#define STARVED_SPIN_NS 300000000ull

/* A spinner: runs on the CPU it is given until told to stop. */
static void *spin_until(void *arg)
{
	int *stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *starved_gives_the_cpus_back(void *arg)
{
	struct outcome *o = arg;
	struct cpu_avoid a, b, before;
	cpu_set_t orig, mask, one;
	pthread_attr_t attr;
	pthread_t spinner[2];
	int stop = 0, started = 0, c, d, i;
	unsigned long long run, delay;
	uint64_t now, t = 0;

	/* kept off none: nothing to give back, whenever it looks */
	cpu_avoid_init(&b);
	before = b;
	CHECK(o, !cpu_avoid_starved(&b, 0));
	CHECK(o, !cpu_avoid_starved(&b, CPU_AVOID_CHECK_NS));
	CHECK(o, !cpu_avoid_starved(&b, UINT64_MAX));
	CHECK(o, !memcmp(&b, &before, sizeof(b)));

	if (!own_mask(&orig)) {
		o->failed = "sched_getaffinity";
		return NULL;
	}
	if (CPU_COUNT(&orig) < 2) {
		o->skip = "the test may run on one CPU only";
		return NULL;
	}
	if (!schedstat(&run, &delay)) {
		o->skip = "no /proc/thread-self/schedstat";
		return NULL;
	}
	cpu_avoid_init(&a);
	c = sched_getcpu();
	now = monotonic_ns();
	CHECK(o, c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &orig));
	CHECK(o, cpu_avoid(&a, c, now));
	d = sched_getcpu();
	CHECK(o, d >= 0 && d < CPU_SETSIZE && d != c && CPU_ISSET(d, &orig));
	CHECK(o, a.avoided == c && a.check_ns == now);
	if (o->failed)
		return NULL;

	/* not before CPU_AVOID_CHECK_NS since it moved: nothing read, nothing
	 * changed */
	before = a;
	CHECK(o, !cpu_avoid_starved(&a, now + 1));
	CHECK(o, !cpu_avoid_starved(&a, now + CPU_AVOID_CHECK_NS - 1));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));

	/* d shared with two spinners: the thread, runnable all the time, runs
	 * a third of it. Its affinity set here (not by cpu_avoid) is not read
	 * by cpu_avoid_starved; cpu_avoid_end gives back the one it began with. */
	CPU_ZERO(&one);
	CPU_SET(d, &one);
	CHECK(o, !pthread_attr_init(&attr));
	if (o->failed)
		return NULL;
	CHECK(o, !pthread_attr_setaffinity_np(&attr, sizeof(one), &one));
	for (i = 0; i < 2 && !o->failed; i++) {
		CHECK(o, !pthread_create(&spinner[i], &attr, spin_until, &stop));
		if (!o->failed)
			started++;
	}
	pthread_attr_destroy(&attr);
	CHECK(o, !sched_setaffinity(0, sizeof(one), &one));
	if (!o->failed) {
		for (t = monotonic_ns(); monotonic_ns() - t < STARVED_SPIN_NS;)
			;
		t = monotonic_ns();
		/* a kernel that keeps no such times shows "0 0 0" */
		if (schedstat(&run, &delay) && !run)
			o->skip = "no times in /proc/thread-self/schedstat";
	}
	if (!o->failed && !o->skip) {
		CHECK(o, cpu_avoid_starved(&a, t));
		CHECK(o, a.avoided == -1);
		CHECK(o, a.starved == 1);
		CHECK(o, a.next_ns == t + CPU_AVOID_BACKOFF_NS);
		CHECK(o, a.backoff_ns == 2 * CPU_AVOID_BACKOFF_NS);
		CHECK(o, a.moves == 1);
		CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < started; i++)
		CHECK(o, !pthread_join(spinner[i], NULL));
	if (o->failed || o->skip)
		return NULL;

	/* off none until the back-off is over, then off the CPU it runs on */
	CHECK(o, !cpu_avoid(&a, c, t + 1));
	CHECK(o, !cpu_avoid(&a, d, t + CPU_AVOID_BACKOFF_NS - 1));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	CHECK(o, cpu_avoid(&a, sched_getcpu(), t + CPU_AVOID_BACKOFF_NS));
	CHECK(o, a.moves == 2 && a.starved == 1);
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));
	CHECK(o, a.avoided == -1);
	/* given back: nothing to look at any more */
	before = a;
	CHECK(o, !cpu_avoid_starved(&a, t + 2 * CPU_AVOID_BACKOFF_NS));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));
	return NULL;
}

static void test_starved_gives_the_cpus_back(void **state)
{
	(void)state;
	run_in_thread(starved_gives_the_cpus_back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_avoid_move_and_end),
		cmocka_unit_test(test_one_cpu_stays),
		cmocka_unit_test(test_bad_cpus_change_nothing),
		cmocka_unit_test(test_affinity_from_outside_kept),
		cmocka_unit_test(test_starved_gives_the_cpus_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
