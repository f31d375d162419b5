/* SPDX-License-Identifier: GPL-2.0-only */
/* test_faults.c: a recording keeps what it wrote when things go wrong:
 * SIGKILL at a random moment (report and perf report read every complete
 * record), a full disk (one clear error, readable files), the drain stalled
 * by SIGSTOP (losses counted and written, recording resumes), SIGINT twice
 * (the second quits at once, files readable). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

/* Starts a recording in the background, a child of the test; its pid. */
static pid_t start_recording(const char *dir, const char *args, const char *log)
{
	return tu_start("exec %s record --force -o %s %s >%s 2>&1", tu_ringtrace(), dir, args, log);
}

/* report and perf report both read the directory (a cut last record is
 * only a warning); the number of samples report counted. */
static uint64_t both_read(const char *dir)
{
	char *out = NULL;
	unsigned long long samples = 0;
	const char *p;

	if (tu_sh(&out, "%s report %s 2>&1", tu_ringtrace(), dir))
		fail_msg("ringtrace report cannot read %s:\n%s", dir, out);
	p = strstr(out, "# ");
	p = p ? strstr(p, "\n# ") : NULL;
	if (!p || sscanf(p, "\n# %llu samples", &samples) != 1)
		fail_msg("no sample count:\n%s", out);
	free(out);
	if (tu_sh(&out, "perf report -i %s --stdio 2>&1 >/dev/null | grep -v -i 'warning\\|cut short\\|Kernel address\\|kptr\\|^$' | head -5; "
			"perf report -i %s --stdio > /dev/null 2>&1", dir, dir))
		fail_msg("perf report cannot read %s:\n%s", dir, out);
	free(out);
	return samples;
}

/* Bytes in the recording's per-CPU files so far. */
static unsigned long per_cpu_bytes(const char *dir)
{
	char *out = NULL;
	unsigned long bytes = 0;

	if (!tu_sh(&out, "cat %s/data.cpu* 2>/dev/null | wc -c", dir))
		bytes = strtoul(out, NULL, 10);
	free(out);
	return bytes;
}

static void test_sigkill_keeps_complete_records(void **state)
{
	char *dir, log[PATH_MAX + 16], *out = NULL;
	pid_t pid;
	uint64_t samples;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	srand((unsigned int)time(NULL));
	pid = start_recording(dir, "-a -g -F 4999 -- sleep 30", log);
	/* once it samples (its start, the verifier's work on a sanitized
	 * build, takes one to a few seconds), at a moment of the drain's
	 * that differs from run to run */
	for (int i = 0; i < 200 && tu_running(pid) && per_cpu_bytes(dir) < 64 * 1024; i++)
		usleep(100000);
	usleep((useconds_t)(rand() % 800) * 1000);
	kill(pid, SIGKILL);
	tu_wait_gone(pid, 5);
	samples = both_read(dir);
	print_message("after SIGKILL: %" PRIu64 " samples readable\n", samples);
	assert_true(samples > 0);
	/* its totals were never written: report says so, not "0 lost" */
	assert_int_equal(tu_sh(&out, "%s report %s 2>&1", tu_ringtrace(), dir), 0);
	if (!strstr(out, "lost and more not known: the recording never ended"))
		fail_msg("report of a recording killed with -9 does not say its totals are missing:\n%.600s",
			 out);
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

/* The samples and losses the summary line claims. */
static void summary_counts(const char *out, uint64_t *samples, uint64_t *lost)
{
	const char *p = strstr(out, "ringtrace: recorded");
	unsigned long long s = 0, l = 0;

	p = p ? strstr(p, " s into ") : NULL;
	p = p ? strstr(p, ": ") : NULL;
	if (!p || sscanf(p, ": %llu samples, %llu lost", &s, &l) != 2)
		fail_msg("no summary line:\n%s", out);
	*samples = s;
	*lost = l;
}

/* A full disk: the recording stops with one clear line, keeps whole records
 * that perf reads, and its totals are true: the samples it claims are those
 * in the files, and what never reached them is counted lost, and written as
 * LOST where the room the cut freed takes it. */
static void test_full_disk_stops_cleanly(void **state)
{
	char *mnt, *copy, dir[PATH_MAX + 16], *out = NULL, *copy_out = NULL;
	struct tu_record_counts files;
	uint64_t claimed, lost;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	mnt = tu_tempdir();
	if (mount("ringtrace-test", mnt, "tmpfs", 0, "size=2m,mode=0700")) {
		int e = errno;

		rmdir(mnt);
		free(mnt);
		tu_skip("cannot mount a tmpfs: %s", strerror(e));
	}
	snprintf(dir, sizeof(dir), "%s/rec", mnt);
	rc = tu_sh(&out, "%s record -a -g -F %lu -o %s -- %s --threads 2 spin 20 2>&1",
		   tu_ringtrace(), tu_sample_freq(9999), dir, tu_loadgen());
	print_message("%s", out);
	/* read as a user would after freeing space: a copy elsewhere (perf
	 * maps its input, and a full tmpfs can fail page faults with SIGBUS);
	 * the tmpfs is gone before anything is checked */
	copy = tu_tempdir();
	tu_sh(&copy_out, "cp -r %s/. %s/ 2>&1", dir, copy);
	umount(mnt);
	rmdir(mnt);
	free(mnt);
	free(copy_out);
	assert_int_equal(rc, 1);
	if (!strstr(out, "No space left on device"))
		fail_msg("no clear error about the full disk:\n%s", out);
	summary_counts(out, &claimed, &lost);
	free(out);
	tu_count_records(copy, 0, &files);
	print_message("claimed %" PRIu64 " samples + %" PRIu64 " lost; files hold %" PRIu64
		      " samples + %" PRIu64 " + %" PRIu64 " lost\n", claimed, lost, files.samples,
		      files.lost_samples, files.lost);
	assert_int_equal(claimed, files.samples);
	assert_int_equal(claimed + lost, files.samples + files.lost_samples + files.lost);
	assert_true(both_read(copy) > 0);
	tu_rmtree(copy);
	free(copy);
}

/* Samples and reported losses (LOST_SAMPLES) in a recording's files. */
static void count(const char *dir, uint64_t *samples, uint64_t *lost)
{
	struct tu_record_counts c;

	tu_count_records(dir, 0, &c);
	*samples = c.samples;
	*lost = c.lost_samples;
}

static void test_stalled_drain_counts_losses_and_resumes(void **state)
{
	char *dir, log[PATH_MAX + 16], args[PATH_MAX + 128], *out = NULL;
	uint64_t samples, lost, calls;
	const char *p;
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	/* 100 000 getpid calls a second for 3 s; the recording is stopped for
	 * one of them: far more than its 512 KiB BPF ring holds */
	snprintf(args, sizeof(args), "-e syscalls:sys_enter_getpid -- %s --cpu %d getpid-rate 100000 3",
		 tu_loadgen(), tu_online_cpus() - 1);
	pid = start_recording(dir, args, log);
	usleep(800000);
	kill(pid, SIGSTOP);
	sleep(1);
	kill(pid, SIGCONT);
	tu_wait_gone(pid, 20);
	assert_int_equal(tu_sh(&out, "cat %s", log), 0);
	p = strstr(out, "calls=");
	assert_non_null(p);
	calls = strtoull(p + 6, NULL, 10);
	count(dir, &samples, &lost);
	print_message("%" PRIu64 " calls: %" PRIu64 " samples + %" PRIu64 " lost\n", calls, samples, lost);
	assert_int_equal(samples + lost, calls);
	assert_true(lost > 10000);      /* the stop lost a second's worth */
	assert_true(samples > 150000);  /* and recording went on after it */
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

static void test_second_sigint_quits_at_once(void **state)
{
	char *dir, log[PATH_MAX + 16], args[128], *out = NULL;
	struct timespec t0, t1;
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	/* a slow disk makes the first SIGINT's flush take long */
	snprintf(args, sizeof(args), "-a -g -F %lu --debug-writer-delay-ms 200 -- sleep 30",
		 tu_sample_freq(9999));
	pid = start_recording(dir, args, log);
	sleep(2);
	kill(pid, SIGINT);
	/* the first one is read within the drain interval (100 ms); one sent
	 * before that would merge with it */
	usleep(500000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(pid, SIGINT);
	tu_wait_gone(pid, 10);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_false(tu_running(pid));
	print_message("gone %.3f s after the second SIGINT\n",
		      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	/* at once: not after the slow writer's flush (seconds) */
	assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 < 0.5);
	both_read(dir);
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

/* timeout(1) signals its child, then its process group (the child again):
 * a second SIGINT within 200 ms of the one being handled is that twin, and
 * the stop stays clean (it ended recordings with no totals, and -g's Python
 * names unwritten). Sent 50 ms after the first, while a slow disk makes the
 * stop take long: read by then or not, the twin falls within 200 ms of it. */
static void test_twin_sigint_stops_cleanly(void **state)
{
	char *dir, log[PATH_MAX + 16], *out = NULL;
	pid_t pid;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	pid = start_recording(dir, "-a -g --debug-writer-delay-ms 200 -- sleep 30", log);
	sleep(2);
	kill(pid, SIGINT);
	usleep(50000);
	kill(pid, SIGINT);
	assert_true(tu_wait_gone(pid, 10));
	assert_int_equal(tu_sh(&out, "cat %s", log), 0);
	if (!strstr(out, "ringtrace: recorded"))
		fail_msg("the twin SIGINT ended the recording before its totals:\n%s", out);
	both_read(dir);
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_keeps_complete_records),
		cmocka_unit_test(test_full_disk_stops_cleanly),
		cmocka_unit_test(test_stalled_drain_counts_losses_and_resumes),
		cmocka_unit_test(test_second_sigint_quits_at_once),
		cmocka_unit_test(test_twin_sigint_stops_cleanly),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
