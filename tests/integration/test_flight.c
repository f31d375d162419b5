/* SPDX-License-Identifier: GPL-2.0-only */
/* test_flight.c: record --overwrite with real BPF on every transport: snapshots
 * hold the newest samples, contiguous and ending at the trigger, every sample
 * is held, overwritten or lost, perf reads the snapshots; SIGUSR2, ringtrace
 * snapshot, --max-snapshots, a snapshot of a window and the run-queue latency
 * trigger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sample_record.h"
#include "test_util.h"

#define EVENTS 200000
#define MAX_CPUS 64

/* The "all" row of a snapshot's accounting file, every row checked to add
 * up; *reason gets the trigger it names (caller frees). */
struct counts {
	uint64_t produced, held, overwritten, lost;
};

/* The same, with each CPU's row in by_cpu (MAX_CPUS of them) if not NULL. */
static struct counts read_accounting_by_cpu(const char *snapshot, char **reason,
					    struct counts *by_cpu)
{
	char path[4096], line[512];
	struct counts all = { 0 };
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/accounting", snapshot);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing", path);
	while (fgets(line, sizeof(line), f)) {
		struct counts c;
		char cpu[16];
		const char *on = strstr(line, "taken on ");

		if (line[0] == '#') {
			if (on && reason)
				*reason = strdup(on + strlen("taken on "));
			continue;
		}
		if (sscanf(line, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, cpu, &c.produced,
			   &c.held, &c.overwritten, &c.lost) != 5)
			continue;
		if (c.produced != c.held + c.overwritten + c.lost)
			fail_msg("%s: CPU %s: %" PRIu64 " produced != %" PRIu64 " + %" PRIu64 " + %" PRIu64,
				 path, cpu, c.produced, c.held, c.overwritten, c.lost);
		if (!strcmp(cpu, "all")) {
			all = c;
			found = true;
		} else if (by_cpu && (unsigned int)atoi(cpu) < MAX_CPUS) {
			by_cpu[atoi(cpu)] = c;
		}
	}
	fclose(f);
	assert_true(found);
	return all;
}

static struct counts read_accounting(const char *snapshot, char **reason)
{
	return read_accounting_by_cpu(snapshot, reason, NULL);
}

/* What a snapshot's files hold: samples (their sequence numbers, from the
 * reserved half of the cpu word, must grow and their times be in order),
 * the gaps between their numbers, the newest of each CPU (numbers are per
 * CPU), and the samples reported lost. */
struct held {
	uint64_t samples;
	uint64_t newest_seq[MAX_CPUS];
	uint64_t lost;
	uint64_t gaps; /* samples missing between two held ones */
};

static struct held read_snapshot(const char *snapshot)
{
	const struct perf_event_header *rec;
	struct held h = { 0 };
	struct tu_records r;
	uint64_t prev_seq = 0, prev_time = 0;
	unsigned int file = 0;

	tu_records_open(&r, snapshot, TU_RECORDS_STRICT);
	while (tu_records_next(&r, &rec)) {
		struct rt_sample_head head;
		struct perf_lost l;

		if (r.file != file) { /* the next file: its own sequence */
			prev_seq = prev_time = 0;
			file = r.file;
		}
		if (rec->type == PERF_RECORD_LOST_SAMPLES) {
			assert_int_equal(perf_lost_decode(rec, &l), 0);
			h.lost += l.lost;
		}
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		/* sequence numbers only grow, and what is missing between
		 * two was lost */
		assert_true(rec->size >= sizeof(head));
		memcpy(&head, rec, sizeof(head));
		if (prev_seq) {
			assert_true(head.seq > prev_seq);
			h.gaps += head.seq - prev_seq - 1;
		}
		assert_true(head.time >= prev_time);
		assert_true(head.cpu < MAX_CPUS);
		prev_seq = head.seq;
		prev_time = head.time;
		h.newest_seq[head.cpu] = head.seq;
		h.samples++;
	}
	tu_records_close(&r);
	return h;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* N getpid calls then a getppid that triggers the snapshot: it holds the
 * newest samples, ending at the N-th, and accounts for all N exactly. */
static void newest_kept(const char *transport, const char *ring_knob)
{
	char *dir = tu_tempdir(), *out = NULL, *reason = NULL, snap[4096];
	struct counts c, total = { 0 }, by_cpu[MAX_CPUS];
	struct held h;
	int rc;

	rc = tu_sh(&out, "%s record --overwrite --force -o %s --transport %s %s -e syscalls:sys_enter_getpid --trigger syscalls:sys_enter_getppid -- %s getpid-getppid %d 2>&1",
		   tu_ringtrace(), dir, transport, ring_knob, tu_loadgen(), EVENTS);
	if (rc)
		fail_msg("record failed:\n%s", out);
	tu_print_text(out);
	/* nothing but snapshots is written */
	snprintf(snap, sizeof(snap), "%s/data", dir);
	assert_false(exists(snap));
	for (int i = 0;; i++) {
		snprintf(snap, sizeof(snap), "%s/snapshot-%03d", dir, i);
		if (!exists(snap))
			break;
		free(reason);
		reason = NULL;
		memset(by_cpu, 0, sizeof(by_cpu));
		c = read_accounting_by_cpu(snap, &reason, by_cpu);
		total.produced += c.produced;
		total.held += c.held;
		if (i == 0) {
			/* the trigger's: the newest samples, up to the last call */
			assert_non_null(strstr(reason, "syscalls:sys_enter_getppid hit by pid"));
			assert_non_null(strstr(reason, "(loadgen)"));
			h = read_snapshot(snap);
			assert_int_equal(h.samples, c.held);
			assert_int_equal(h.lost, c.lost);
			/* contiguous, ending at each CPU's last call (the
			 * workload may move between CPUs, which number their
			 * samples each), unless the BPF ring overflowed (then
			 * the gaps were lost) */
			assert_true(h.gaps <= c.lost);
			for (int cpu = 0; cpu < MAX_CPUS; cpu++)
				if (!by_cpu[cpu].lost && by_cpu[cpu].held)
					assert_int_equal(h.newest_seq[cpu], by_cpu[cpu].produced);
			assert_int_equal(c.produced, EVENTS);
			if (c.held * 10 > EVENTS)
				fail_msg("%" PRIu64 " of %d held: the ring must hold far fewer", c.held,
					 EVENTS);
			assert_true(c.overwritten > 0);
			free(out);
			assert_int_equal(tu_sh(&out, "perf report -i %s --stdio 2>&1", snap), 0);
			assert_non_null(strstr(out, "syscalls:sys_enter_getpid"));
			assert_non_null(strstr(out, "loadgen"));
			free(out);
			out = NULL;
		}
	}
	assert_int_equal(total.produced, EVENTS);
	free(reason);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_newest_kept_ringbuf(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	newest_kept("ringbuf", "--staging-size 64K");
}

static void test_newest_kept_ring(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	newest_kept("ring", "-m 16");
}

static void test_newest_kept_perfbuf(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	newest_kept("perfbuf", "-m 16");
}

/* A BPF ring too small for a drain held back: most samples never reach the
 * staging ring; the snapshot counts them lost, in a LOST_SAMPLES record too,
 * and still accounts for all N. (An own ring's --overwrite is written
 * backward, as perfbuf's: nothing to lose.) */
static void losses_counted(const char *transport)
{
	char *dir, *out = NULL, snap[4096];
	struct counts c;
	struct held h;
	int rc;

	tu_skip_unless_possible();
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record --overwrite --force -o %s --transport %s -m 1 --debug-drain-delay-ms 20 --staging-size 64K -e syscalls:sys_enter_getpid -- %s getpid %d 2>&1",
		   tu_ringtrace(), dir, transport, tu_loadgen(), EVENTS);
	if (rc)
		fail_msg("record failed:\n%s", out);
	snprintf(snap, sizeof(snap), "%s/snapshot-000", dir);
	c = read_accounting(snap, NULL);
	h = read_snapshot(snap);
	print_message("%" PRIu64 " produced = %" PRIu64 " held + %" PRIu64 " overwritten + %" PRIu64 " lost\n",
		      c.produced, c.held, c.overwritten, c.lost);
	assert_int_equal(c.produced, EVENTS);
	assert_true(c.lost * 2 > EVENTS);
	assert_int_equal(h.lost, c.lost);
	assert_int_equal(h.samples, c.held);
	assert_true(h.gaps <= c.lost);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_losses_counted_ringbuf(void **state)
{
	(void)state;
	losses_counted("ringbuf");
}

/* Losses just before a trigger are the trigger's: the BPF side reports
 * them with the CPU's next sample, which never comes (the workload's last
 * call triggers, on another event), yet the trigger's snapshot counts all N
 * and the end's none. */
static void test_losses_before_trigger_are_its(void **state)
{
	char *dir, *out = NULL, snap[4096];
	struct counts c;
	struct held h;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record --overwrite --force -o %s --transport ringbuf -m 1 --debug-drain-delay-ms 20 --staging-size 64K -e syscalls:sys_enter_getpid --trigger syscalls:sys_enter_getppid -- %s getpid-getppid %d 2>&1",
		   tu_ringtrace(), dir, tu_loadgen(), EVENTS);
	if (rc)
		fail_msg("record failed:\n%s", out);
	tu_print_text(out);
	snprintf(snap, sizeof(snap), "%s/snapshot-000", dir);
	c = read_accounting(snap, NULL);
	h = read_snapshot(snap);
	assert_int_equal(c.produced, EVENTS);
	assert_true(c.lost * 2 > EVENTS);
	assert_int_equal(h.lost, c.lost);
	assert_int_equal(h.samples, c.held);
	snprintf(snap, sizeof(snap), "%s/snapshot-001", dir);
	c = read_accounting(snap, NULL);
	assert_int_equal(c.produced, 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* SIGUSR2 through "ringtrace snapshot --wait", naming the directory, then
 * the recording's pid (found among the files it holds open), and
 * --max-snapshots 2: two snapshots perf and ringtrace read, none at the end. */
static void test_snapshot_command_and_limit(void **state)
{
	char *dir, *out = NULL, *reason = NULL, snap[4096];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* the snapshots once the recording is under way (its start, the
	 * verifier's work on a sanitized build, takes one to a few seconds) */
	rc = tu_sh(&out, "%s record --overwrite --max-snapshots 2 -a -g --force -o %s -- sleep 3 & "
			 "for i in $(seq 300); do [ -e %s/ringtrace.pid ] && break; sleep 0.1; done; "
			 "sleep 0.5; %s snapshot --wait %s && %s snapshot --wait $(cat %s/ringtrace.pid); s=$?; "
			 "wait; exit $s",
		   tu_ringtrace(), dir, dir, tu_ringtrace(), dir, tu_ringtrace(), dir);
	if (rc)
		fail_msg("record or snapshot failed:\n%s", out);
	for (int i = 0; i < 2; i++) {
		snprintf(snap, sizeof(snap), "%s/snapshot-%03d", dir, i);
		read_accounting(snap, &reason);
		assert_non_null(strstr(reason, "SIGUSR2"));
		free(reason);
		reason = NULL;
		free(out);
		assert_int_equal(tu_sh(&out, "perf report -i %s --stdio 2>&1", snap), 0);
		assert_non_null(strstr(out, "cpu-clock"));
		free(out);
		assert_int_equal(tu_sh(&out, "%s report %s 2>&1", tu_ringtrace(), snap), 0);
	}
	snprintf(snap, sizeof(snap), "%s/snapshot-002", dir);
	assert_false(exists(snap));
	snprintf(snap, sizeof(snap), "%s/ringtrace.pid", dir);
	assert_false(exists(snap));
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Two busy threads and a low-priority third on one CPU: the third waits in
 * the run queue for far longer than 20 ms, which the BPF side sees and
 * turns into a snapshot. */
static void test_runqlat_trigger(void **state)
{
	char *dir, *out = NULL, *reason = NULL, snap[4096];
	double waited = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record --overwrite --trigger-runqlat 20 --max-snapshots 1 -a --force -o %s -- "
			 "sh -c '%s --cpu 0 --threads 2 spin 2 & nice -n 19 %s --cpu 0 spin 2 & wait' 2>&1",
		   tu_ringtrace(), dir, tu_loadgen(), tu_loadgen());
	if (rc)
		fail_msg("record failed:\n%s", out);
	snprintf(snap, sizeof(snap), "%s/snapshot-000", dir);
	read_accounting(snap, &reason);
	print_message("snapshot taken on %s", reason);
	assert_int_equal(sscanf(reason, "run-queue wait of %lf ms", &waited), 1);
	assert_true(waited > 20.0);
	free(reason);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Flight-recorder options are refused, one line each, before anything runs. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		"record --trigger sched:sched_switch -a -- true",
		"record --overwrite --trigger nosuch:event -a -- true",
		"record --overwrite --trigger sched -a -- true",
		"record --overwrite --max-snapshots 0 -a -- true",
		"snapshot /nonexistent/ringtrace.data",
		"snapshot 1",
	};

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int rc = tu_sh(&out, "%s %s 2>&1", tu_ringtrace(), bad[i]);

		print_message("%s -> %d: %s", bad[i], rc, out);
		assert_true(rc != 0);
		assert_non_null(strstr(out, "ringtrace: "));
		assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1); /* one line */
		free(out);
	}
}

/* The trigger fires for hits in the recording's scope only: another
 * process calling getppid over and over does not snapshot a recording of
 * a command that never calls it. */
static void test_trigger_keeps_to_scope(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *reason = NULL, snap[4096];
	pid_t other;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	/* outside the scope: shells, each calling getppid as it starts */
	other = tu_start("exec sh -c 'while :; do sh -c :; done'");
	rc = tu_sh(&out, "%s record --overwrite --force -o %s -e syscalls:sys_enter_getpid --trigger syscalls:sys_enter_getppid --max-snapshots 1 -- %s getpid-rate 1000 2 2>&1",
		   tu_ringtrace(), dir, tu_loadgen());
	kill(other, SIGKILL);
	tu_wait_gone(other, 5);
	if (rc)
		fail_msg("record failed:\n%s", out);
	/* the one snapshot is the end of the recording's, not a trigger's */
	snprintf(snap, sizeof(snap), "%s/snapshot-000", dir);
	read_accounting(snap, &reason);
	print_message("snapshot-000: %s\n", reason);
	assert_null(strstr(reason, "hit by pid"));
	free(reason);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A snapshot asked for with a window (sigqueue's value, as export -g asks for
 * a profile's): its files hold the samples from the window's start on, the
 * older ones it held counted as such in its accounting; perf reads what it
 * holds, as many samples. */
static void test_windowed_snapshot(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, path[4096], snap[4096], line[512];
	uint64_t since = 0, held = 0, older = 0, first = UINT64_MAX, samples = 0;
	const struct perf_event_header *rec;
	bool has_older = false;
	struct tu_records r;
	struct timespec now;
	pid_t recorder;
	long pid = 0;
	FILE *f;

	(void)state;
	tu_skip_unless_possible();
	recorder = tu_start("exec %s record --overwrite -a -F 499 --force -o %s -- %s spin 6 2>/dev/null",
			    tu_ringtrace(), dir, tu_loadgen());
	snprintf(path, sizeof(path), "%s/ringtrace.pid", dir);
	for (int i = 0; i < 300 && !pid; i++) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		if (f)
			fclose(f);
		usleep(100000);
	}
	assert_true(pid > 0);
	sleep(2); /* samples older than the window */
	clock_gettime(CLOCK_MONOTONIC, &now);
	since = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec - 500000000ull;
	assert_int_equal(sigqueue((pid_t)pid, SIGUSR2, (union sigval){ .sival_ptr = (void *)since }), 0);
	snprintf(path, sizeof(path), "%s/snapshot-000/accounting", dir);
	for (int i = 0; i < 100 && !exists(path); i++)
		usleep(100000);
	snprintf(snap, sizeof(snap), "%s/snapshot-000", dir);
	read_accounting(snap, NULL); /* produced = held + overwritten + lost */
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		uint64_t c[5];

		has_older |= line[0] == '#' && strstr(line, "older, held but not written");
		if (!strncmp(line, "all ", 4) &&
		    sscanf(line + 4, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &c[0],
			   &c[1], &c[2], &c[3], &c[4]) == 5) {
			held = c[1];
			older = c[4];
		}
	}
	fclose(f);
	assert_true(has_older);
	print_message("held %" PRIu64 ", of them older than the window %" PRIu64 "\n", held, older);
	assert_true(older > 0 && older < held);
	tu_records_open(&r, snap, TU_RECORDS_STRICT);
	while (tu_records_next(&r, &rec)) {
		struct rt_sample_head head;

		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		memcpy(&head, rec, sizeof(head));
		first = head.time < first ? head.time : first;
		samples++;
	}
	tu_records_close(&r);
	assert_int_equal(samples, held - older);
	assert_true(first >= since);
	/* perf's view: as many samples */
	assert_int_equal(tu_sh(&out, "perf script -i %s -F event 2>/dev/null | wc -l", snap), 0);
	assert_int_equal(strtoull(out, NULL, 10), samples);
	free(out);
	tu_stop(recorder);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest_kept_ringbuf),
		cmocka_unit_test(test_newest_kept_perfbuf),
		cmocka_unit_test(test_newest_kept_ring),
		cmocka_unit_test(test_losses_counted_ringbuf),
		cmocka_unit_test(test_losses_before_trigger_are_its),
		cmocka_unit_test(test_snapshot_command_and_limit),
		cmocka_unit_test(test_windowed_snapshot),
		cmocka_unit_test(test_runqlat_trigger),
		cmocka_unit_test(test_trigger_keeps_to_scope),
		cmocka_unit_test(test_refused),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
