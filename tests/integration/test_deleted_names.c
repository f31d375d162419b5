/* SPDX-License-Identifier: GPL-2.0-only */
/* test_deleted_names.c: binaries deleted while or after they run keep their
 * names: `cp prog x; ./x & rm x` in export -g's profile and in a recording's
 * report, one replaced while it runs, and a short-lived binary deleted after
 * each run in a profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "test_util.h"

#define HOT "loadgen_hot_loop"

/* `rm rtdelx` as soon as the program started in the background ($!) runs
 * it: not before its exec (on a busy machine the shell's rm can come first,
 * and nothing runs at all). */
#define RM_ONCE_RUNNING                                                                \
	"for i in $(seq 500); do [ \"$(cat /proc/$!/comm 2>/dev/null)\" = rtdelx ] && break; " \
	"sleep 0.01; done; rm rtdelx"

/* The exporter the profile tests share, its directory and port. */
static pid_t exporter;
static char *export_dir;
static int port;

static int stop_exporter(void **state)
{
	(void)state;
	tu_stop(exporter);
	exporter = 0;
	if (export_dir) {
		tu_rmtree(export_dir);
		free(export_dir);
		export_dir = NULL;
	}
	return 0;
}

/* export -g, once: ready when a 1 s profile is answered (the sampling child
 * attached). */
static void need_exporter(void)
{
	double until;

	tu_skip_unless_possible();
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	if (exporter)
		return;
	export_dir = tu_tempdir();
	port = 20000 + (int)((getpid() * 13 + 54 * 101) % 12000);
	exporter = tu_start("export RUNTIME_DIRECTORY=%s; exec %s export --listen 127.0.0.1:%d -g "
			    ">%s/export.log 2>&1",
			    export_dir, tu_ringtrace(), port, export_dir);
	/* its child's start: -g's tables of every process, sanitized, on a
	 * machine busy with other suites can take a minute */
	until = monotonic_seconds() + 90;
	while (tu_sh(NULL, "curl -sf --max-time 3 -o /dev/null "
			   "'http://127.0.0.1:%d/debug/pprof/profile?seconds=1'",
		     port)) {
		if (monotonic_seconds() > until) {
			char *log = NULL, said[2048];

			tu_sh(&log, "cat %s/export.log", export_dir);
			snprintf(said, sizeof(said), "%s", log ? log : "");
			free(log);
			stop_exporter(NULL);
			fail_msg("no profile within 90 s: %s", said);
		}
		usleep(200000);
	}
}

/* Of the samples of comm in the profile file (go tool pprof -timeout=60 -raw of it): how
 * many, and how many with HOT among their frames. */
static void count_named(const char *profile, const char *comm, int *total, int *named)
{
	struct tu_raw_profile p;
	char *raw = NULL;

	assert_int_equal(tu_sh(&raw, "cd %s && HOME=%s go tool pprof -timeout=60 -raw %s 2>&1", export_dir,
			       export_dir, profile),
			 0);
	*total = *named = 0;
	tu_raw_parse(raw, &p);
	for (size_t i = 0; i < p.nr; i++) {
		if (!tu_raw_label(&p.samples[i], "comm", comm))
			continue;
		*total += p.samples[i].count;
		if (tu_raw_frame(&p.samples[i], HOT))
			*named += p.samples[i].count;
	}
	tu_raw_free(&p);
	free(raw);
}

/* GET a profile of seconds into export_dir/name. */
static void get_profile(const char *name, int seconds)
{
	assert_int_equal(tu_sh(NULL, "curl -sf --max-time 70 -o %s/%s "
				     "'http://127.0.0.1:%d/debug/pprof/profile?seconds=%d'",
			       export_dir, name, port, seconds),
			 0);
}

/* A copy of loadgen named name (padded to size bytes, if given) removed as
 * soon as it runs (not before its exec: on a busy machine the shell's rm can
 * come first, and nothing runs at all), spinning through a 4 s profile,
 * whose samples of it are named. */
static void deleted_while_running(const char *name, const char *size)
{
	char *out = NULL, profile[64], pad[96] = "";
	int total, named;
	pid_t pid;

	need_exporter();
	if (size)
		snprintf(pad, sizeof(pad), "truncate -s %s %s && ", size, name);
	assert_int_equal(tu_sh(&out, "cd %s && cp %s %s && %s{ ./%s spin 8 >/dev/null 2>&1 & "
				     "echo $!; for i in $(seq 500); do "
				     "[ \"$(cat /proc/$!/comm 2>/dev/null)\" = %s ] && break; "
				     "sleep 0.01; done; rm %s; }",
			       export_dir, tu_loadgen(), name, pad, name, name, name),
			 0);
	pid = (pid_t)atoi(out);
	free(out);
	snprintf(profile, sizeof(profile), "%s.pb.gz", name);
	get_profile(profile, 4);
	tu_stop(pid);
	count_named(profile, name, &total, &named);
	print_message("%s%s%s, deleted while it runs: %d samples, %d of them in " HOT "\n", name,
		      size ? " of " : "", size ? size : "", total, named);
	assert_true(total >= 20);
	assert_true(named * 10 >= total * 9);
}

/* The check: a program whose binary is removed while it runs. */
static void test_running_binary_deleted_in_profile(void **state)
{
	(void)state;
	deleted_while_running("rtdelx", NULL);
}

/* The same with a binary over UNLINKED_HOLD_UNMET_BYTES (loadgen padded
 * to 3 MiB): such a file is held only once a walk met it, opened again by
 * the mapping of the process then (deleted by then, or not). */
static void test_large_binary_deleted_in_profile(void **state)
{
	(void)state;
	deleted_while_running("rtdelbig", "3M");
}

/* A binary that runs 0.1 s and is removed after each run, again and again
 * during the profile: its samples are named (its files gone before the
 * profile is made). */
static void test_short_lived_deleted_in_profile(void **state)
{
	int total, named;
	pid_t loop;

	(void)state;
	need_exporter();
	/* each run its own directory, removed with it: no path of the
	 * profile's stands any more when it is made */
	loop = tu_start("cd %s && for i in $(seq 50); do mkdir r$i && cp %s r$i/rtshort && "
			"./r$i/rtshort spin 0.1 >/dev/null 2>&1; rm -rf r$i; done",
			export_dir, tu_loadgen());
	get_profile("short.pb.gz", 5);
	tu_stop(loop);
	count_named("short.pb.gz", "rtshort", &total, &named);
	print_message("rtshort, 0.1 s runs each deleted after: %d samples, %d of them in " HOT "\n",
		      total, named);
	assert_true(total >= 10);
	assert_true(named * 10 >= total * 9);
}

/* Records -g comm, a copy of loadgen spinning 2 s, while the shell that
 * started it does then (deletes or replaces the file), with record's
 * options; then reports it: its samples keep the names of the version that
 * ran (at least 200 of them, 90% in HOT). what: what then did. */
static void check_recording(const char *options, const char *comm, const char *then,
			    const char *what)
{
	char *dir = tu_tempdir(), *out = NULL, *folded = NULL;
	unsigned long with, all;

	if (tu_sh(&out, "cd %s && %s record %s-g -F 999 -o rec -- sh -c 'cp %s %s && "
			"{ ./%s spin 2 >/dev/null 2>&1 & %s; wait; }' 2>&1",
		  dir, tu_ringtrace(), options, tu_loadgen(), comm, comm, then))
		fail_msg("record failed: %s", out);
	tu_print_text(out);
	free(out);
	assert_int_equal(tu_sh(&folded, "cd %s && %s report rec --folded --comm %s", dir,
			       tu_ringtrace(), comm),
			 0);
	tu_folded_count(folded, HOT, &with, &all);
	print_message("%s, %s while it runs, recorded: %lu samples, %lu in " HOT "\n", comm, what,
		      all, with);
	assert_true(all >= 200);
	assert_true(with * 10 >= all * 9);
	free(folded);
	tu_rmtree(dir);
	free(dir);
}

/* The same check on a recording: record, then report. */
static void test_running_binary_deleted_in_recording(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	check_recording("-v ", "rtdelx", RM_ONCE_RUNNING, "deleted");
}

/* A binary replaced while it runs (a new version renamed over it, as a
 * package upgrade does): its samples keep the names of the version that ran. */
static void test_running_binary_replaced_in_recording(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	check_recording("", "rtrepl", "sleep 0.3; cp /bin/true rtrepl.new && mv rtrepl.new rtrepl",
			"replaced");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_binary_deleted_in_recording),
		cmocka_unit_test(test_running_binary_replaced_in_recording),
		cmocka_unit_test(test_running_binary_deleted_in_profile),
		cmocka_unit_test(test_large_binary_deleted_in_profile),
		cmocka_unit_test(test_short_lived_deleted_in_profile),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, stop_exporter);
}
