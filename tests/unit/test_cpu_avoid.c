/* SPDX-License-Identifier: GPL-2.0-only */
/* test_cpu_avoid.c: the drain thread kept off one CPU: cpu_avoid takes the
 * CPU it runs on out of its affinity (and the kernel moves it off before the
 * call returns), once: not again for that CPU, nor for another sooner than
 * CPU_AVOID_INTERVAL_NS after (by the time it is given), then for the other,
 * the first given back; cpu_avoid_end gives back the affinity it began with.
 * A thread of one CPU, a CPU out of range and one the thread may not run on
 * change nothing; an affinity another gives the thread is kept, by cpu_avoid
 * (one CPU: nowhere to go) and by cpu_avoid_end (not undone), and is where it
 * may run from then on. A thread kept off a CPU that waits to run more than
 * CPU_AVOID_STARVED_PERCENT of the time (it shares the CPU left with 24
 * spinners: it waits ~96%) is given back all of them by cpu_avoid_starved,
 * not before CPU_AVOID_CHECK_NS since it moved, and moves again no sooner
 * than CPU_AVOID_BACKOFF_NS after; one that waits less (beside one spinner:
 * ~50%) or sleeps keeps off it, and one kept off none is left as it is. Each
 * check runs in a thread of its own, whose affinity ends with it: the test's
 * main thread keeps its own. */
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
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "sys/cpu_avoid.h"

/* A check, and what its thread found: cmocka's asserts end a test by a
 * longjmp, which must be made on the thread that runs it; the thread notes
 * its first failure (or why it cannot run here), the test's thread reports
 * it. */
struct outcome {
	void (*check)(struct outcome *o);
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

static void *run_check(void *arg)
{
	struct outcome *o = arg;

	o->check(o);
	return NULL;
}

/* cmocka's test: the check in *state (THREAD_TEST's) run in a thread. */
static void run_in_thread(void **state)
{
	struct outcome *o = *state;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, run_check, o), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (o->failed)
		fail_msg("%s:%d: %s", __FILE__, o->line, o->failed);
	if (o->skip) {
		/* (a property of the machine, not of its setup: no tu_skip) */
		print_message("SKIP: %s\n", o->skip);
		skip();
	}
}

/* The cmocka test test_NAME: the check NAME run in a thread of its own. */
#define THREAD_TEST(name) \
	{ "test_" #name, run_in_thread, NULL, NULL, &(struct outcome){ .check = name } }

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

/* A check's start: the thread's affinity in *orig; false (o's failure or
 * skip noted) if it cannot be read, or holds fewer than cpus CPUs. */
static bool begin(struct outcome *o, cpu_set_t *orig, int cpus)
{
	if (!own_mask(orig))
		o->failed = "sched_getaffinity";
	else if (CPU_COUNT(orig) < cpus)
		o->skip = "the test may run on one CPU only";
	return !o->failed && !o->skip;
}

/* What a moved thread started from (begin_moved). */
struct moved {
	cpu_set_t orig;  /* its affinity before */
	cpu_set_t mask;  /* after: orig but c */
	int c;           /* the CPU it moved off */
	int d;           /* the one it ran on after */
	uint64_t at;     /* when (monotonic) */
};

/* begin, then a (cpu_avoid_init's) moves off the CPU the thread runs on:
 * whether it did (else o's failure or skip is noted). */
static bool begin_moved(struct outcome *o, struct cpu_avoid *a, struct moved *m)
{
	cpu_set_t want;

	if (!begin(o, &m->orig, 2))
		return false;
	cpu_avoid_init(a);
	m->c = sched_getcpu();
	m->at = monotonic_ns();
	CHECK(o, m->c >= 0 && m->c < CPU_SETSIZE && CPU_ISSET(m->c, &m->orig));
	CHECK(o, cpu_avoid(a, m->c, m->at));
	m->d = sched_getcpu();
	CHECK(o, m->d >= 0 && m->d < CPU_SETSIZE && m->d != m->c && CPU_ISSET(m->d, &m->orig));
	want = m->orig;
	CPU_CLR(m->c, &want);
	CHECK(o, own_mask(&m->mask) && CPU_EQUAL(&m->mask, &want));
	CHECK(o, a->avoided == m->c && a->check_ns == m->at && a->moves == 1);
	return !o->failed;
}

static void avoid_move_and_end(struct outcome *o)
{
	struct cpu_avoid a;
	cpu_set_t orig, mask, want;
	int c, d;

	if (!begin(o, &orig, 2))
		return;
	cpu_avoid_init(&a);
	CHECK(o, a.nr_allowed == CPU_COUNT(&orig));
	CHECK(o, a.avoided == -1);
	c = sched_getcpu();
	CHECK(o, c >= 0 && c < CPU_SETSIZE && CPU_ISSET(c, &orig));
	if (o->failed)
		return;

	CHECK(o, cpu_avoid(&a, c, 1000));
	/* off c at once (the kernel moves the caller before it returns) */
	CHECK(o, sched_getcpu() != c);
	want = orig;
	CPU_CLR(c, &want);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &want));
	CHECK(o, CPU_EQUAL(&a.given, &want));
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
	CHECK(o, CPU_EQUAL(&a.given, &orig) && CPU_EQUAL(&a.allowed, &orig));
	CHECK(o, a.avoided == -1);
}

static void one_cpu_stays(struct outcome *o)
{
	struct cpu_avoid a, before;
	cpu_set_t orig, one, mask;
	int c, d;

	if (!begin(o, &orig, 1))
		return;
	c = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	CHECK(o, c >= 0 && !sched_setaffinity(0, sizeof(one), &one));
	if (o->failed)
		return;
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
}

static void bad_cpus_change_nothing(struct outcome *o)
{
	struct cpu_avoid a, before;
	cpu_set_t orig, mask;
	int i, absent = -1;

	if (!begin(o, &orig, 2))
		return;
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
}

/* An affinity another gives the thread (taskset -p) is where it may run from
 * then on: one CPU, nowhere to go; all of them again, it moves off one; one
 * given it while it keeps off a CPU, cpu_avoid_end keeps (and takes as where
 * it may run), not giving back the one it began with. */
static void affinity_from_outside_kept(struct outcome *o)
{
	struct cpu_avoid a;
	cpu_set_t orig, mask, one, off_c;
	int c;

	if (!begin(o, &orig, 2))
		return;
	cpu_avoid_init(&a);
	c = sched_getcpu();
	CPU_ZERO(&one);
	CPU_SET(c, &one);
	off_c = orig;
	CPU_CLR(c, &off_c);
	CHECK(o, !sched_setaffinity(0, sizeof(one), &one));
	CHECK(o, !cpu_avoid(&a, c, 1000));
	CHECK(o, a.nr_allowed == 1);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
	CHECK(o, !sched_setaffinity(0, sizeof(orig), &orig));
	CHECK(o, cpu_avoid(&a, c, 1000));
	CHECK(o, a.nr_allowed == CPU_COUNT(&orig));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &off_c));
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &orig));

	/* off c again; then put on c alone from outside (c: not the affinity
	 * cpu_avoid gave it, whatever the CPUs) */
	CHECK(o, cpu_avoid(&a, c, 1000 + CPU_AVOID_INTERVAL_NS));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &off_c));
	CHECK(o, a.avoided == c);
	CHECK(o, !sched_setaffinity(0, sizeof(one), &one));
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
	CHECK(o, CPU_EQUAL(&a.allowed, &one) && CPU_EQUAL(&a.given, &one));
	CHECK(o, a.nr_allowed == 1 && a.avoided == -1);
	/* where it may run now: nowhere to go */
	CHECK(o, !cpu_avoid(&a, c, 1000 + 3 * CPU_AVOID_INTERVAL_NS));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &one));
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

/* How long the test's thread runs beside spinners or sleeps, in ns. */
#define SPIN_NS 300000000ull

/* The spinners that starve it: it runs 1/25 of the time, waits ~96% (more
 * on a busy machine), past CPU_AVOID_STARVED_PERCENT with a margin. */
#define STARVED_SPINNERS 24
_Static_assert(100 * STARVED_SPINNERS / (STARVED_SPINNERS + 1) >= CPU_AVOID_STARVED_PERCENT + 5,
	       "too few spinners to starve the thread");

/* Threads that run on one CPU until told to stop. */
struct spinners {
	pthread_t t[STARVED_SPINNERS];
	int nr;
	int stop;
};

static void *spin_until(void *arg)
{
	int *stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
		;
	return NULL;
}

/* Starts nr spinners on cpu, puts the calling thread there with them for
 * SPIN_NS, then back on mask: what it waited to run meanwhile is counted by
 * then (the kernel adds a wait when the thread runs again); the spinners run
 * on till spinners_stop (the caller looks first: joining them, the thread
 * would sleep, and that time count as neither). */
static void spin_beside(struct outcome *o, struct spinners *s, int cpu, int nr,
			const cpu_set_t *mask)
{
	pthread_attr_t attr;
	cpu_set_t one;
	uint64_t t;

	s->nr = 0;
	s->stop = 0;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(o, nr <= STARVED_SPINNERS && !pthread_attr_init(&attr));
	if (o->failed)
		return;
	CHECK(o, !pthread_attr_setaffinity_np(&attr, sizeof(one), &one));
	while (s->nr < nr && !o->failed) {
		CHECK(o, !pthread_create(&s->t[s->nr], &attr, spin_until, &s->stop));
		if (!o->failed)
			s->nr++;
	}
	pthread_attr_destroy(&attr);
	CHECK(o, !sched_setaffinity(0, sizeof(one), &one));
	if (o->failed)
		return;
	for (t = monotonic_ns(); monotonic_ns() - t < SPIN_NS;)
		;
	/* the affinity cpu_avoid gave it: cpu_avoid_end takes no other for
	 * one given from outside */
	CHECK(o, !sched_setaffinity(0, sizeof(*mask), mask));
}

static void spinners_stop(struct outcome *o, struct spinners *s)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	while (s->nr > 0)
		CHECK(o, !pthread_join(s->t[--s->nr], NULL));
}

/* Whether a is before but for when it looked last (now) and the wait then
 * (no less). */
static bool only_looked(const struct cpu_avoid *a, struct cpu_avoid before, uint64_t now)
{
	if (a->check_ns != now || a->delay_at_check < before.delay_at_check)
		return false;
	before.check_ns = a->check_ns;
	before.delay_at_check = a->delay_at_check;
	return !memcmp(a, &before, sizeof(before));
}

static void starved_gives_the_cpus_back(struct outcome *o)
{
	struct cpu_avoid a, before;
	struct spinners s;
	struct moved m;
	cpu_set_t mask;
	unsigned long long run, delay;
	uint64_t t;

	/* kept off none: nothing to give back, whenever it looks */
	cpu_avoid_init(&a);
	before = a;
	CHECK(o, !cpu_avoid_starved(&a, 0));
	CHECK(o, !cpu_avoid_starved(&a, CPU_AVOID_CHECK_NS));
	CHECK(o, !cpu_avoid_starved(&a, UINT64_MAX));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));

	if (!begin_moved(o, &a, &m))
		return;
	/* not before CPU_AVOID_CHECK_NS since it moved: nothing read, nothing
	 * changed */
	before = a;
	CHECK(o, !cpu_avoid_starved(&a, m.at + 1));
	CHECK(o, !cpu_avoid_starved(&a, m.at + CPU_AVOID_CHECK_NS - 1));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));

	/* d shared with the spinners: the thread, runnable all the time, waits
	 * nearly all of it */
	spin_beside(o, &s, m.d, STARVED_SPINNERS, &m.mask);
	t = monotonic_ns();
	/* a kernel that keeps no such times shows "0 0 0" */
	if (!o->failed && (!schedstat(&run, &delay) || !run))
		o->skip = "no times in /proc/thread-self/schedstat";
	if (!o->failed && !o->skip) {
		CHECK(o, cpu_avoid_starved(&a, t));
		CHECK(o, a.avoided == -1);
		CHECK(o, a.starved == 1);
		CHECK(o, a.next_ns == t + CPU_AVOID_BACKOFF_NS);
		CHECK(o, a.backoff_ns == 2 * CPU_AVOID_BACKOFF_NS);
		CHECK(o, a.moves == 1);
		CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.orig));
	}
	spinners_stop(o, &s);
	if (o->failed || o->skip)
		return;

	/* off none until the back-off is over, then off the CPU it runs on */
	CHECK(o, !cpu_avoid(&a, m.c, t + 1));
	CHECK(o, !cpu_avoid(&a, m.d, t + CPU_AVOID_BACKOFF_NS - 1));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.orig));
	CHECK(o, cpu_avoid(&a, sched_getcpu(), t + CPU_AVOID_BACKOFF_NS));
	CHECK(o, a.moves == 2 && a.starved == 1);
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.orig));
	CHECK(o, a.avoided == -1);
	/* given back: nothing to look at any more */
	before = a;
	CHECK(o, !cpu_avoid_starved(&a, t + 2 * CPU_AVOID_BACKOFF_NS));
	CHECK(o, !memcmp(&a, &before, sizeof(a)));
}

/* Waiting to run half the time (d shared with one spinner; two thirds with
 * another busy task there, on a busy machine), or asleep: not starved, it
 * keeps off c. Whatever the kernel keeps (no times: nothing is given back). */
static void not_starved_keeps_off(struct outcome *o)
{
	struct timespec nap = { 0, SPIN_NS };
	struct cpu_avoid a, before;
	struct spinners s;
	struct moved m;
	cpu_set_t mask;
	uint64_t t;

	if (!begin_moved(o, &a, &m))
		return;
	before = a;
	CHECK(o, !nanosleep(&nap, NULL));
	t = monotonic_ns();
	CHECK(o, !cpu_avoid_starved(&a, t));
	CHECK(o, only_looked(&a, before, t));
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.mask));

	before = a;
	spin_beside(o, &s, m.d, 1, &m.mask);
	t = monotonic_ns();
	if (!o->failed) {
		CHECK(o, !cpu_avoid_starved(&a, t));
		CHECK(o, only_looked(&a, before, t));
		CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.mask));
	}
	spinners_stop(o, &s);
	if (o->failed)
		return;
	cpu_avoid_end(&a);
	CHECK(o, own_mask(&mask) && CPU_EQUAL(&mask, &m.orig));
	CHECK(o, a.avoided == -1 && a.starved == 0 && a.backoff_ns == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		THREAD_TEST(avoid_move_and_end),
		THREAD_TEST(one_cpu_stays),
		THREAD_TEST(bad_cpus_change_nothing),
		THREAD_TEST(affinity_from_outside_kept),
		THREAD_TEST(starved_gives_the_cpus_back),
		THREAD_TEST(not_starved_keeps_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
