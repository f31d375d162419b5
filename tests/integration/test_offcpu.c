/* SPDX-License-Identifier: GPL-2.0-only */
/* test_offcpu.c: record --off-cpu of the load generator sleeping a known time in a
 * known function (-g, fp): folded weights, perf's reading, --off-cpu-min, -p, -G, bad values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

/* The workload: BRIEF nanosleeps of BRIEF_US us in sleep_briefly, then
 * SLEEPS of SLEEP_MS ms in sleep_in_known_function; recorded with
 * --off-cpu-min MIN, which the brief ones stay far below. Many sleeps, none
 * long: one whose switch back in the kernel does not report (about one in
 * 150 here) is 4% of the total, the wait to run again after each a little. */
#define SLEEPS 25
#define SLEEP_MS 40
#define BRIEF 200
#define BRIEF_US 100
#define MIN "20ms"
#define MIN_NS 20000000ULL /* MIN */
#define KNOWN_US ((uint64_t)SLEEPS * SLEEP_MS * 1000)

struct fixture {
	char *dir;
	char *record_out; /* record's output: its totals */
	char *folded;     /* report --folded --event offcpu-time */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	int rc;

	fx->dir = tu_tempdir();
	*state = fx;
	if (tu_integration_skip_reason())
		return 0;
	rc = tu_sh(&fx->record_out,
		   "%s record -v -g --off-cpu --off-cpu-min " MIN " -o %s/rec -- %s --time sleep %d %d %d %d 2>&1",
		   tu_ringtrace(), fx->dir, tu_loadgen(), SLEEPS, SLEEP_MS, BRIEF, BRIEF_US);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, fx->record_out);
	rc = tu_sh(&fx->folded, "%s report %s/rec --folded --event offcpu-time", tu_ringtrace(),
		   fx->dir);
	if (rc)
		fail_msg("report --folded failed (%d):\n%s", rc, fx->folded);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_stop_left(state);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->record_out);
	free(fx->folded);
	free(fx);
	return 0;
}

/* The sum of the counts of the folded lines holding every one of the
 * given frames (";NAME;" or ";NAME" at the end), and how many lines. */
static uint64_t folded_weight(const char *folded, const char *const *frames, unsigned int nr,
			      unsigned int *lines)
{
	uint64_t sum = 0;
	const char *line = folded;

	*lines = 0;
	while (*line) {
		const char *end = strchr(line, '\n'), *space;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, len);
		bool all = true;

		space = strrchr(copy, ' ');
		assert_non_null(space);
		copy[space - copy] = '\0';
		for (unsigned int i = 0; i < nr && all; i++) {
			char mid[128], *at;
			size_t flen;

			snprintf(mid, sizeof(mid), ";%s;", frames[i]);
			flen = strlen(frames[i]);
			at = strstr(copy, mid);
			if (!at) {
				size_t clen = strlen(copy);

				all = clen > flen && copy[clen - flen - 1] == ';' &&
				      !strcmp(copy + clen - flen, frames[i]);
			}
		}
		if (all) {
			sum += strtoull(space + 1, NULL, 10);
			(*lines)++;
		}
		free(copy);
		line += len;
		if (*line == '\n')
			line++;
	}
	return sum;
}

/* The time sleep_in_known_function took as the load generator measured it
 * (loadgen --time: its sleeps, and each wait to run again after them, which
 * a busy machine makes longer), in us; 0 if out does not say. */
static uint64_t measured_us(const char *out)
{
	const char *at = strstr(out, "slept ");
	unsigned long long ns = 0;

	if (!at || sscanf(at, "slept %llu ns in sleep_in_known_function", &ns) != 1)
		return 0;
	return ns / 1000;
}

/* Whether weight (us) is within 10% of the time slept: of the sleeps asked
 * for (known) and, on a machine busy enough that waking took longer than
 * that, of the time the load generator measured. */
static bool within_10_percent(uint64_t weight, uint64_t known, uint64_t measured)
{
	uint64_t want = measured > known ? measured : known;

	return weight >= want * 9 / 10 && weight <= want * 11 / 10;
}

/* The folded weight through sleep_in_known_function and the kernel's
 * schedule is the time slept there: microseconds, within 10%. */
static void test_known_sleep_weighs_its_time(void **state)
{
	struct fixture *fx = *state;
	const char *frames[] = { "sleep_in_known_function", "schedule" };
	unsigned int lines;
	uint64_t us;

	tu_skip_unless_possible();
	us = folded_weight(fx->folded, frames, 2, &lines);
	print_message("off-CPU through sleep_in_known_function;...;schedule: %" PRIu64
		      " us in %u stacks (slept %" PRIu64 " us, measured %" PRIu64 " us)\n",
		      us, lines, KNOWN_US, measured_us(fx->record_out));
	if (!within_10_percent(us, KNOWN_US, measured_us(fx->record_out)))
		fail_msg("folded weight %" PRIu64 " us, expected %" PRIu64 " us within 10%%:\n%s\n%s",
			 us, KNOWN_US, fx->folded, fx->record_out);
	assert_non_null(strstr(fx->folded, "loadgen;"));
}

/* The flame graph of offcpu-time counts microseconds (flamegraph.pl's
 * --countname=us), as its folded stacks do. */
static void test_flamegraph_counts_microseconds(void **state)
{
	struct fixture *fx = *state;
	char *svg = NULL;
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(&svg, "%s report %s/rec --event offcpu-time --flamegraph -", tu_ringtrace(),
		   fx->dir);
	assert_int_equal(rc, 0);
	if (!strstr(svg, "<title>sleep_in_known_function (") || !strstr(svg, " us, ") ||
	    strstr(svg, " samples, "))
		fail_msg("the off-CPU flame graph does not count microseconds:\n%.2000s", svg);
	free(svg);
}

/* Without --event, a flame graph of a recording of two events draws the
 * first and says so in one line, naming the other; with it, nothing. */
static void test_first_event_chosen_is_said(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL;
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(&out, "%s report %s/rec --flamegraph - 2>&1 >/dev/null", tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 0);
	if (!strstr(out, "using the samples of event cpu-clock; it also has offcpu-time (choose one with --event)") ||
	    strchr(out, '\n') != out + strlen(out) - 1)
		fail_msg("the event drawn is not said in one line:\n%s", out);
	free(out);
	rc = tu_sh(&out, "%s report %s/rec --flamegraph - --event cpu-clock 2>&1 >/dev/null",
		   tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	free(out);
}

/* --call-graph fp: the user stack by frame pointers, from the syscall the
 * load generator makes itself (libc's has none) up through the known
 * function: its weight is the time slept there, within 10%. */
static void test_frame_pointers(void **state)
{
	struct fixture *fx = *state;
	const char *frames[] = { "sleep_in_known_function", "nanosleep_syscall", "schedule" };
	char *out = NULL, *folded = NULL;
	const uint64_t known = 25 * 40 * 1000;
	unsigned int lines;
	uint64_t us;
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(&out, "%s record --call-graph fp --off-cpu -o %s/fp -- %s --time sleep-raw 25 40 2>&1",
		   tu_ringtrace(), fx->dir, tu_loadgen());
	if (rc)
		fail_msg("record --call-graph fp failed (%d):\n%s", rc, out);
	rc = tu_sh(&folded, "%s report %s/fp --folded --event offcpu-time", tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 0);
	us = folded_weight(folded, frames, 3, &lines);
	print_message("fp: off-CPU through sleep_in_known_function;nanosleep_syscall;...;schedule: %" PRIu64
		      " us (slept %" PRIu64 " us, measured %" PRIu64 " us)\n", us, known,
		      measured_us(out));
	if (!within_10_percent(us, known, measured_us(out)))
		fail_msg("folded weight %" PRIu64 " us, expected %" PRIu64 " us within 10%%:\n%s\n%s", us,
			 known, folded, out);
	free(out);
	free(folded);
}

/* Blocks shorter than --off-cpu-min give no sample: every offcpu-time
 * sample's period is at least MIN. The totals count the short ones and
 * account for every sleep timed: sampled, too short, still asleep, or not
 * resolved (thread id reused, slept again before seen to run, unreadable,
 * ran again outside -C). The brief sleeps are mostly among the short ones
 * (one that waited over MIN to run again on a busy machine is a sample). */
static void test_short_blocks_are_not_sampled(void **state)
{
	struct fixture *fx = *state;
	const char *at, *line;
	char *script = NULL;
	unsigned long long timed, samples, short_blocks, asleep, full, nomem, stale, replaced,
		unreadable, other_cpu, period, shortest = ~0ULL, offcpu = 0;

	tu_skip_unless_possible();
	at = strstr(fx->record_out, "ringtrace: off-CPU: ");
	assert_non_null(at);
	if (sscanf(at, "ringtrace: off-CPU: %llu sleeps timed: %llu samples (%*f s off CPU); %llu blocks under --off-cpu-min %*f ms (%*f s), not sampled; %llu tasks still asleep at the end; not timed: %llu sleeps (table of sleeping tasks full), %llu (no memory), %llu (thread id reused), %llu (slept again before seen to run), %llu (unreadable), %llu (ran again outside -C)",
		   &timed, &samples, &short_blocks, &asleep, &full, &nomem, &stale, &replaced,
		   &unreadable, &other_cpu) != 10)
		fail_msg("cannot read the off-CPU totals:\n%s", fx->record_out);
	print_message("%llu sleeps timed = %llu samples + %llu under " MIN " + %llu asleep + %llu reused + %llu slept again + %llu unreadable + %llu elsewhere\n",
		      timed, samples, short_blocks, asleep, stale, replaced, unreadable, other_cpu);
	assert_int_equal(timed, samples + short_blocks + asleep + stale + replaced + unreadable +
					other_cpu);
	assert_int_equal(full + nomem + unreadable + other_cpu, 0);
	assert_int_equal(tu_sh(&script, "%s script %s/rec -F event,period", tu_ringtrace(), fx->dir),
			 0);
	for (line = script; (at = strstr(line, "offcpu-time")); line = at + 1) {
		const char *start = at;

		while (start > script && start[-1] != '\n')
			start--;
		period = strtoull(start, NULL, 10);
		shortest = period < shortest ? period : shortest;
		offcpu++;
	}
	free(script);
	print_message("%llu off-CPU samples, the shortest %llu ns\n", offcpu, shortest);
	assert_int_equal(offcpu, samples);
	if (shortest < MIN_NS)
		fail_msg("an off-CPU sample of %llu ns, under --off-cpu-min " MIN, shortest);
	if (short_blocks + replaced < BRIEF / 2 || samples + replaced < SLEEPS)
		fail_msg("%llu blocks under --off-cpu-min and %llu samples, expected about %d and at least %d:\n%s",
			 short_blocks, samples, BRIEF, SLEEPS, fx->record_out);
}

/* perf reads the recording: the offcpu-time event, its samples as ringtrace
 * counts them, its total period, the stack through the known function, and
 * perf script prints what ringtrace script prints. */
static void test_perf_reads_offcpu_time(void **state)
{
	struct fixture *fx = *state;
	char *perf = NULL, *ours = NULL, *script = NULL;
	unsigned long long perf_samples = 0, our_samples = 0, perf_count = 0, our_count = 0;
	const char *at, *line;
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(&perf, "perf report -i %s/rec --stdio --no-children --sort sym 2>&1", fx->dir);
	assert_int_equal(rc, 0);
	at = strstr(perf, "of event 'offcpu-time'");
	if (!at)
		fail_msg("perf report shows no offcpu-time event:\n%s", perf);
	/* "# Samples: N  of event 'offcpu-time'\n# Event count (approx.): C" */
	for (line = at; line > perf && line[-1] != '\n'; line--)
		;
	assert_int_equal(sscanf(line, "# Samples: %llu", &perf_samples), 1);
	at = strstr(at, "# Event count (approx.): ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "# Event count (approx.): %llu", &perf_count), 1);
	assert_non_null(strstr(at, "sleep_in_known_function"));
	rc = tu_sh(&ours, "%s report %s/rec --event offcpu-time --sort sym", tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 0);
	at = strstr(ours, "# event offcpu-time: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "# event offcpu-time: %llu samples", &our_samples), 1);
	rc = tu_sh(&script, "%s script %s/rec -F event,period", tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 0);
	for (line = script; (line = strstr(line, "offcpu-time")); line++) {
		const char *start = line;

		while (start > script && start[-1] != '\n')
			start--;
		our_count += strtoull(start, NULL, 10);
	}
	print_message("perf: %llu samples, %llu ns; ringtrace: %llu samples, %llu ns\n",
		      perf_samples, perf_count, our_samples, our_count);
	assert_true(perf_samples > 0);
	assert_int_equal(perf_samples, our_samples);
	assert_int_equal(perf_count, our_count);
	free(perf);
	free(ours);
	free(script);
	/* script prints every sample, offcpu-time's stacks among them, as perf
	 * script does, with fields added or taken away too (which keep the
	 * line break) and with fields that replace the defaults (which drop it) */
	{
		static const char *const options[] = { "", "-F +period", "-F -comm",
						       "-F comm,tid,period,event" };

		for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
			rc = tu_sh(&perf, "perf script -i %s/rec %s 2>/dev/null", fx->dir, options[i]);
			assert_int_equal(rc, 0);
			rc = tu_sh(&script, "%s script %s/rec %s", tu_ringtrace(), fx->dir, options[i]);
			assert_int_equal(rc, 0);
			if (!i)
				assert_non_null(strstr(script, "sleep_in_known_function"));
			if (strcmp(perf, script))
				fail_msg("ringtrace script %s differs from perf script:\n--- perf\n%s\n--- ringtrace\n%s",
					 options[i], perf, script);
			free(perf);
			free(script);
		}
	}
}

/* perf script's off-CPU samples in dir: those of pid, and of others. */
static void count_offcpu_samples(const char *dir, pid_t pid, unsigned int *ours,
				 unsigned int *others)
{
	char *script = NULL;
	const char *line;

	*ours = *others = 0;
	assert_int_equal(tu_sh(&script, "perf script -i %s -F pid,event 2>&1", dir), 0);
	for (line = script; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (memmem(line, len, "offcpu-time", 11)) {
			if (strtol(line, NULL, 10) == pid)
				(*ours)++;
			else
				(*others)++;
		}
		line += len;
		if (*line)
			line++;
	}
	free(script);
}

/* -p of one process: no off-CPU sample of another, though another sleeps the
 * same way beside it, nor of the command that sets the duration. */
static void test_pid_scope(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL, dir[512];
	pid_t target, other;
	unsigned int ours, others;
	int rc;

	tu_skip_unless_possible();
	target = tu_start("exec %s sleep 400 10", tu_loadgen());
	other = tu_start("exec %s sleep 400 10", tu_loadgen());
	snprintf(dir, sizeof(dir), "%s/scope", fx->dir);
	rc = tu_sh(&out, "%s record --off-cpu -p %d -o %s -- sleep 1.5 2>&1", tu_ringtrace(),
		   (int)target, dir);
	kill(target, SIGKILL);
	kill(other, SIGKILL);
	waitpid(target, NULL, 0);
	waitpid(other, NULL, 0);
	if (rc)
		fail_msg("record -p failed (%d):\n%s", rc, out);
	count_offcpu_samples(dir, target, &ours, &others);
	print_message("-p %d: %u off-CPU samples of it, %u of others\n", (int)target, ours, others);
	if (!ours || others)
		fail_msg("expected off-CPU samples of %d only:\n%s", (int)target, out);
	free(out);
}

/* -a -G CGROUP: only the sleeper moved into the cgroup, its samples named
 * with that cgroup (the one it slept in, not the CPU's next task's). */
static void test_cgroup_scope(void **state)
{
	struct fixture *fx = *state;
	char cg[512], procs[600], rel[128], dir[512], *out = NULL;
	const char *root;
	pid_t inside, outside;
	unsigned int ours, others;
	FILE *f;
	int rc;

	tu_skip_unless_possible();
	root = tu_cgroup2_root();
	snprintf(rel, sizeof(rel), "ringtrace-offcpu-%d", (int)getpid());
	snprintf(cg, sizeof(cg), "%s/%s", root, rel);
	if (mkdir(cg, 0755))
		tu_skip("cannot create cgroup %s: %s", cg, strerror(errno));
	inside = tu_start("exec %s sleep 400 10", tu_loadgen());
	outside = tu_start("exec %s sleep 400 10", tu_loadgen());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	f = fopen(procs, "w");
	assert_non_null(f);
	fprintf(f, "%d\n", (int)inside);
	assert_int_equal(fclose(f), 0);
	snprintf(dir, sizeof(dir), "%s/cgroup", fx->dir);
	rc = tu_sh(&out, "%s record -a -G %s --off-cpu -o %s -- sleep 1.5 2>&1", tu_ringtrace(), rel,
		   dir);
	kill(inside, SIGKILL);
	kill(outside, SIGKILL);
	waitpid(inside, NULL, 0);
	waitpid(outside, NULL, 0);
	rmdir(cg);
	if (rc)
		fail_msg("record -a -G failed (%d):\n%s", rc, out);
	free(out);
	count_offcpu_samples(dir, inside, &ours, &others);
	print_message("-G %s: %u off-CPU samples of %d in it, %u of others\n", rel, ours,
		      (int)inside, others);
	if (!ours || others)
		fail_msg("expected off-CPU samples of %d only, got %u and %u of others", (int)inside,
			 ours, others);
	rc = tu_sh(&out, "%s report %s --event offcpu-time --sort cgroup 2>&1", tu_ringtrace(), dir);
	if (rc || !strstr(out, rel) || !strstr(out, "100.00%"))
		fail_msg("ringtrace report --sort cgroup does not give %s all the off-CPU time:\n%s",
			 rel, out);
	free(out);
}

/* The switch program opens no perf event on sched_switch: while -a --off-cpu
 * records, perf stat counts every switch of a task that sleeps 200 times
 * (a BPF program on a perf tracepoint event returning 0 would leave perf
 * none, see DESIGN.md). */
static void test_perf_still_counts_sched_switch(void **state)
{
	struct fixture *fx = *state;
	char dir[512], path[600], *out = NULL, *p;
	unsigned long long switches = 0;
	pid_t rec;
	int rc;

	tu_skip_unless_possible();
	snprintf(dir, sizeof(dir), "%s/neighbour", fx->dir);
	rec = tu_start("exec %s record -a --off-cpu -q -o %s", tu_ringtrace(), dir);
	snprintf(path, sizeof(path), "%s/data", dir);
	for (int i = 0; i < 1000 && access(path, F_OK); i++)
		usleep(10000);
	if (access(path, F_OK)) {
		kill(rec, SIGKILL);
		waitpid(rec, NULL, 0);
		fail_msg("the recording did not start: no %s", path);
	}
	rc = tu_sh(&out, "perf stat -x, -e sched:sched_switch -- %s sleep 200 1 2>&1 >/dev/null",
		   tu_loadgen());
	kill(rec, SIGINT);
	if (!tu_wait_gone(rec, 20))
		fail_msg("the recording did not stop");
	waitpid(rec, NULL, 0);
	assert_int_equal(rc, 0);
	p = strstr(out, ",sched:sched_switch");
	assert_non_null(p);
	while (p > out && p[-1] != '\n')
		p--;
	switches = strtoull(p, NULL, 10);
	print_message("perf stat beside record -a --off-cpu: %llu switches of a task sleeping 200 times\n",
		      switches);
	if (switches < 200)
		fail_msg("perf stat counted %llu sched_switch, expected at least 200:\n%s", switches, out);
	free(out);
}

/* A bad --off-cpu-min is a usage error: one line, exit status 2. */
static void test_bad_min_is_usage_error(void **state)
{
	const char *bad[] = { "5", "1xs", "-1ms", "ms", "99999999999s" };
	struct fixture *fx = *state;
	char *out = NULL;
	int rc;

	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rc = tu_sh(&out, "%s record --off-cpu --off-cpu-min '%s' -o %s/bad -- true 2>&1",
			   tu_ringtrace(), bad[i], fx->dir);
		if (rc != 2 || !strstr(out, "--off-cpu-min") || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("--off-cpu-min %s: exit %d, expected 2 and one line:\n%s", bad[i], rc, out);
		free(out);
	}
	rc = tu_sh(&out, "%s record --off-cpu-min 1ms -o %s/bad -- true 2>&1", tu_ringtrace(), fx->dir);
	if (rc != 2 || !strstr(out, "--off-cpu"))
		fail_msg("--off-cpu-min without --off-cpu: exit %d, expected 2:\n%s", rc, out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_sleep_weighs_its_time),
		cmocka_unit_test(test_flamegraph_counts_microseconds),
		cmocka_unit_test(test_first_event_chosen_is_said),
		cmocka_unit_test(test_frame_pointers),
		cmocka_unit_test(test_short_blocks_are_not_sampled),
		cmocka_unit_test(test_perf_reads_offcpu_time),
		cmocka_unit_test(test_pid_scope),
		cmocka_unit_test(test_cgroup_scope),
		cmocka_unit_test(test_perf_still_counts_sched_switch),
		cmocka_unit_test(test_bad_min_is_usage_error),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, setup, teardown);
}
