/* SPDX-License-Identifier: GPL-2.0-only */
/* test_drain_cpu.c: where the drain thread runs. On the CPU of a program it
 * records, busy, it moves off it (the scheduler leaves a thread woken on a
 * busy CPU there when it sees no idle one): a system-wide recording's drain
 * is put on the CPU of a getpid generator (150,000 calls a second), then let
 * run there and on one other, which a spinner keeps busy; it is then seen on
 * the other CPU, not on the generator's, and the writer it wakes may not run
 * there either. An affinity given it from outside (taskset -p) is kept.
 * Every call of the generator is a sample or counted lost, as perf counts
 * them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* The CPU the thread tid of process pid last ran on (/proc's "processor"),
 * or -1 once it has gone. */
static int last_cpu_of(pid_t pid, pid_t tid)
{
	char path[96], buf[1024], *p;
	int field = 0, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* fields from the 3rd on follow the comm's ')' */
		for (field = 2, p = strtok(p + 1, " "); p; p = strtok(NULL, " "))
			if (++field == 39) {
				cpu = atoi(p);
				break;
			}
	}
	fclose(f);
	return cpu;
}

/* The thread of process pid named comm, or 0. */
static pid_t thread_named(pid_t pid, const char *comm)
{
	char *out = NULL;
	pid_t tid = 0;

	if (!tu_sh(&out, "grep -lx '%s' /proc/%d/task/*/comm 2>/dev/null | head -1", comm, pid) &&
	    out)
		sscanf(out, "/proc/%*d/task/%d/comm", &tid);
	free(out);
	return tid;
}

/* Waits up to seconds for path to exist and hold something. */
static bool wait_for_file(const char *path, double seconds)
{
	struct stat st;

	for (int i = 0; i < seconds * 20; i++) {
		if (!stat(path, &st) && st.st_size > 0)
			return true;
		usleep(50000);
	}
	return false;
}

/* Samples of loadgen as pid gen in the recording dir, and samples lost (of anyone's:
 * the recording is system-wide), as perf sees them. */
static void generator_counts(const char *dir, pid_t gen, unsigned long *samples,
			     unsigned long *lost)
{
	char *out = NULL;

	/* (loadgen's, not those of the shell that exec'd it under its pid) */
	if (tu_sh(&out, "perf script -i %s -F comm,pid 2>/dev/null | "
			"awk '$1 == \"loadgen\" && $2 == %d {n++} END {print n + 0}'",
		  dir, gen))
		fail_msg("perf script of %s failed", dir);
	*samples = strtoul(out, NULL, 10);
	free(out);
	out = NULL;
	if (tu_sh(&out, "perf report --stats -i %s 2>/dev/null | awk '/ stats:$/ && !/^Aggregated/ "
			"{ev = 1} ev && /LOST_SAMPLES events:/ {s += $3} END {print s + 0}'",
		  dir))
		fail_msg("perf report --stats of %s failed", dir);
	*lost = strtoul(out, NULL, 10);
	free(out);
}

/* What the test started, stopped at its end whether it passed or not (a
 * system-wide recording left running would slow every test after it). */
static pid_t started[3];

static int stop_started(void **state)
{
	for (size_t i = 0; i < sizeof(started) / sizeof(started[0]); i++) {
		tu_stop(started[i]);
		started[i] = 0;
	}
	return tu_tempdir_teardown(state);
}

/* The generator's calls a second: a few hundred records in each of the
 * drain's passes, a recording of ~60 MB. */
#define GEN_RATE 150000

static void test_drain_moves_off_the_busy_cpu(void **state)
{
	char *dir = *state, path[512], *allowed = NULL, *calls_out = NULL, *p;
	int busy = -1, other = -1, on_busy = 0, looks = 0, status;
	unsigned long samples, lost, calls = 0;
	cpu_set_t own, one, two, mask;
	pid_t rec, gen, spin, writer;

	tu_skip_unless_possible();
	/* of the CPUs the test may run on (those of what it starts), the
	 * generator's the highest, the spinner's the lowest */
	assert_int_equal(sched_getaffinity(0, sizeof(own), &own), 0);
	if (CPU_COUNT(&own) < 2)
		tu_skip("the test may run on one CPU only: nowhere else to drain");
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &own)) {
			if (other < 0)
				other = i;
			busy = i;
		}
	CPU_ZERO(&one);
	CPU_SET(busy, &one);
	two = one;
	CPU_SET(other, &two);
	started[0] = rec = tu_start("exec %s record -q -a -e syscalls:sys_enter_getpid -o %s/rec "
				    "2>%s/err",
				    tu_ringtrace(), dir, dir);
	snprintf(path, sizeof(path), "%s/rec/data", dir);
	if (!wait_for_file(path, 30))
		fail_msg("the recording did not start");
	started[1] = spin = tu_start("exec %s --cpu %d spin 4", tu_loadgen(), other);
	started[2] = gen = tu_start("exec %s --cpu %d getpid-rate %d 4 2>%s/gen", tu_loadgen(),
				    busy, GEN_RATE, dir);
	usleep(300000);
	/* the drain (the recording's main thread) put on the generator's CPU,
	 * then let run on the two busy CPUs, as an admin's taskset -p would:
	 * with no idle CPU, the scheduler leaves it where it is woken */
	assert_int_equal(sched_setaffinity(rec, sizeof(one), &one), 0);
	usleep(50000);
	assert_int_equal(sched_setaffinity(rec, sizeof(two), &two), 0);
	usleep(300000);
	for (int i = 0; i < 150; i++, usleep(10000)) {
		int cpu = last_cpu_of(rec, rec);

		if (cpu < 0)
			fail_msg("the recording ended early");
		looks++;
		on_busy += cpu == busy;
	}
	tu_sh(&allowed, "grep Cpus_allowed_list /proc/%d/status", rec);
	printf("drain seen on CPU %d (the generator's) %d times of %d; %s", busy, on_busy, looks,
	       allowed ? allowed : "\n");
	free(allowed);
	assert_true(on_busy * 10 <= looks);
	/* the writer it wakes keeps off that CPU with it */
	writer = thread_named(rec, "rt-writer");
	assert_true(writer > 0);
	assert_int_equal(sched_getaffinity(writer, sizeof(mask), &mask), 0);
	assert_false(CPU_ISSET(busy, &mask));
	/* an affinity given from outside is kept: the busy CPU alone, neither
	 * narrowed nor given back */
	assert_int_equal(sched_setaffinity(rec, sizeof(one), &one), 0);
	usleep(500000);
	assert_int_equal(last_cpu_of(rec, rec), busy);
	assert_int_equal(sched_getaffinity(rec, sizeof(mask), &mask), 0);
	assert_true(CPU_EQUAL(&mask, &one));
	assert_true(tu_wait_gone(gen, 30));
	started[2] = 0;
	tu_stop(spin);
	started[1] = 0;
	status = tu_stop(rec);
	started[0] = 0;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* every call a sample or counted lost */
	tu_sh(&calls_out, "cat %s/gen", dir);
	p = calls_out ? strstr(calls_out, "calls=") : NULL;
	if (!p || sscanf(p, "calls=%lu", &calls) != 1)
		fail_msg("no call count from loadgen: %s", calls_out ? calls_out : "");
	free(calls_out);
	snprintf(path, sizeof(path), "%s/rec", dir);
	generator_counts(path, gen, &samples, &lost);
	printf("generator: %lu calls, %lu samples of it, %lu lost in all\n", calls, samples, lost);
	assert_true(samples <= calls && samples + lost >= calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_drain_moves_off_the_busy_cpu,
						tu_tempdir_setup, stop_started),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
