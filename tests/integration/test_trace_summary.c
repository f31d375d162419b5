/* SPDX-License-Identifier: GPL-2.0-only */
/* test_trace_summary.c: trace --summary's per process and syscall counts,
 * errors and histograms, against perf stat and perf trace -s on the same commands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

struct row {
	unsigned long long calls, errors;
	double total, min, avg, max;
};

/* The row of syscall in the block of the process named comm (pid, or any pid
 * if 0) in a summary as perf trace -s prints it; whether there is one. */
static bool find_row(const char *text, const char *comm, long pid, const char *syscall,
		     struct row *r)
{
	char head[128], name[64];
	const char *p = text, *end;

	for (;;) {
		if (pid)
			snprintf(head, sizeof(head), "\n %s (%ld), ", comm, pid);
		else
			snprintf(head, sizeof(head), "\n %s (", comm);
		if (!(p = strstr(p, head)))
			return false;
		p += strlen(head);
		/* the block ends at the next process's header or the text's end */
		end = strstr(p, " events, ");
		end = end ? strstr(end, "\n\n\n") : NULL;
		for (const char *l = strchr(p, '\n'); l && (!end || l < end); l = strchr(l + 1, '\n')) {
			if (sscanf(l + 1, " %63s %llu %llu %lf %lf %lf %lf", name, &r->calls, &r->errors,
				   &r->total, &r->min, &r->avg, &r->max) == 7 &&
			    !strcmp(name, syscall))
				return true;
		}
		if (!end)
			return false;
		p = end;
	}
}

/* trace --summary ARGS (stdout alone), which must succeed or end with
 * status want_status; the output, caller frees. */
static char *trace(int want_status, const char *args)
{
	char *out = NULL;
	int status = tu_sh(&out, "%s trace --summary %s 2>/dev/null", tu_ringtrace(), args);

	if (status != want_status)
		fail_msg("trace --summary %s: status %d, not %d:\n%s", args, status, want_status, out);
	return out;
}

/* The getpid calls of loadgen getpid N: exactly N, as perf stat counts them. */
static void test_getpid_counted_exactly(void **state)
{
	char *out, *perf = NULL, args[512];
	unsigned long long perf_count = 0;
	struct row r;

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-- %s getpid 5000", tu_loadgen());
	out = trace(0, args);
	if (!find_row(out, "loadgen", 0, "getpid", &r))
		fail_msg("no getpid row for loadgen in:\n%s", out);
	assert_int_equal(r.calls, 5000);
	assert_int_equal(r.errors, 0);
	assert_true(r.min <= r.avg && r.avg <= r.max && r.total >= r.max);
	assert_true(r.total > 0);
	if (tu_sh(&perf, "perf stat -x, -e syscalls:sys_enter_getpid -- %s getpid 5000 2>&1 >/dev/null",
		  tu_loadgen()) ||
	    !strstr(perf, "syscalls:sys_enter_getpid") || sscanf(perf, "%llu,", &perf_count) != 1)
		fail_msg("perf stat failed:\n%s", perf);
	assert_int_equal(r.calls, perf_count);
	printf("getpid: ringtrace %llu calls (%.3f ms), perf stat %llu\n", r.calls, r.total, perf_count);
	free(perf);
	free(out);
}

/* Every syscall of loadgen getpid 5000 as perf stat -e 'syscalls:sys_enter_*'
 * counts it over the same command, but exit_group (never returns: no time). */
static void test_every_syscall_as_perf_stat_counts_it(void **state)
{
	char *out, *perf = NULL, args[512], name[128];
	const char *p;
	unsigned long long n;
	size_t compared = 0;
	struct row r;

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-- %s getpid 5000", tu_loadgen());
	out = trace(0, args);
	if (tu_sh(&perf, "perf stat -x, -e 'syscalls:sys_enter_*' -- %s getpid 5000 2>&1 >/dev/null",
		  tu_loadgen()))
		fail_msg("perf stat failed:\n%.2000s", perf);
	for (p = perf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, "%llu,,syscalls:sys_enter_%127[a-z0-9_],", &n, name) != 2 || !n ||
		    !strcmp(name, "exit_group"))
			continue;
		if (!find_row(out, "loadgen", 0, name, &r))
			fail_msg("perf stat counts %llu %s, ringtrace none:\n%s", n, name, out);
		if (r.calls != n)
			fail_msg("%s: ringtrace %llu calls, perf stat %llu", name, r.calls, n);
		compared++;
	}
	printf("%zu syscalls counted as perf stat counts them\n", compared);
	assert_true(compared >= 5);
	free(perf);
	free(out);
}

/* Failing syscalls are counted as errors, as perf trace -s counts them.
 * ls does the same calls each run, so ringtrace's one run is held to perf
 * trace's count of the same command; perf trace is given three runs, as one
 * of its runs in a CI once missed a failing openat that every run of either
 * tool before and after it counted (39 calls, 19 errors). */
static void test_errors_as_perf_trace_counts_them(void **state)
{
	const char *cmd = "ls /nonexistent /nonexistent2";
	const char *syscalls[] = { "openat", "statx", "access" };
	const size_t n_syscalls = sizeof(syscalls) / sizeof(syscalls[0]);
	char *out, *perf = NULL, args[256];
	struct row ours[3], theirs;
	size_t agreed = 0;

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-- %s", cmd);
	out = trace(2, args); /* ls's own status: the files are missing */
	for (size_t i = 0; i < n_syscalls; i++)
		if (!find_row(out, "ls", 0, syscalls[i], &ours[i]))
			fail_msg("no %s row for ls in:\n%s", syscalls[i], out);
	assert_true(ours[1].errors >= 2); /* statx of the two missing files */
	for (int run = 1; run <= 3 && agreed < n_syscalls; run++) {
		free(perf);
		perf = NULL;
		tu_sh(&perf, "perf trace -s -- %s 2>&1", cmd);
		agreed = 0;
		for (size_t i = 0; i < n_syscalls; i++) {
			if (!strstr(perf, "Summary of events") ||
			    !find_row(perf, "ls", 0, syscalls[i], &theirs)) {
				printf("perf trace -s gave no %s row: checked errors >= 1 only\n",
				       syscalls[i]);
				assert_true(ours[i].errors >= 1);
				agreed++;
				continue;
			}
			printf("%s: ringtrace %llu calls %llu errors, "
			       "perf trace -s (run %d) %llu calls %llu errors\n",
			       syscalls[i], ours[i].calls, ours[i].errors, run, theirs.calls,
			       theirs.errors);
			agreed += ours[i].calls == theirs.calls && ours[i].errors == theirs.errors;
		}
	}
	if (agreed < n_syscalls)
		fail_msg("ringtrace's counts of %s differ from each of perf trace -s's three runs", cmd);
	free(perf);
	free(out);
}

/* -- CMD: the processes the command forks are counted, each under its pid. */
static void test_command_children_followed(void **state)
{
	char *out, args[512];
	const char *p;
	unsigned long long seen[2] = { 0, 0 };
	size_t n = 0;
	long pid;
	struct row r;

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-- sh -c '%s getpid 1000; %s getpid 2000; true'", tu_loadgen(),
		 tu_loadgen());
	out = trace(0, args);
	for (p = out; (p = strstr(p, "\n loadgen (")) && n < 2; p++) {
		if (sscanf(p, "\n loadgen (%ld)", &pid) != 1 || !find_row(out, "loadgen", pid, "getpid", &r))
			fail_msg("no getpid row for loadgen at:\n%.500s", p);
		seen[n++] = r.calls;
	}
	if (n != 2)
		fail_msg("not two loadgen processes in:\n%s", out);
	/* the busiest process last, as perf prints them */
	assert_int_equal(seen[0], 1000);
	assert_int_equal(seen[1], 2000);
	if (!find_row(out, "sh", 0, "wait4", &r) && !find_row(out, "sh", 0, "clone", &r))
		fail_msg("the shell itself not counted in:\n%s", out);
	free(out);
}

/* --histogram: getpid's buckets add up to its calls. */
static void test_histogram_adds_up(void **state)
{
	char *out, args[512];
	const char *p;
	unsigned long long sum = 0, n;
	char range[64];

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "--histogram -- %s getpid 3000", tu_loadgen());
	out = trace(0, args);
	if (!(p = strstr(out, "   getpid          time (nsec)")))
		fail_msg("no getpid histogram in:\n%s", out);
	for (p = strchr(p, '\n'); p && sscanf(p + 1, " %63[^:] : %llu |", range, &n) == 2;
	     p = strchr(p + 1, '\n'))
		sum += n;
	assert_int_equal(sum, 3000);
	free(out);
}

/* --metrics FILE: Prometheus histograms promtool accepts, cumulative, +Inf
 * equal to the table's calls; errors as counted in the table. */
static void test_metrics(void **state)
{
	char *dir = tu_tempdir(), *out, *prom = NULL, args[1024], line[512];
	unsigned long long prev = 0, v, inf = 0, errors = 0;
	size_t buckets = 0;
	const char *p;
	struct row r;

	(void)state;
	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "--metrics %s/m.prom -- sh -c '%s getpid 2500; ls /nonexistent; true'",
		 dir, tu_loadgen());
	out = trace(0, args);
	if (tu_sh(&prom, "promtool check metrics < %s/m.prom 2>&1", dir))
		fail_msg("promtool check metrics:\n%s", prom);
	free(prom);
	tu_sh(&prom, "cat %s/m.prom", dir);
	for (p = prom; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (sscanf(p, "%511[^\n]", line) != 1)
			continue;
		if (strstr(line, "_bucket{comm=\"loadgen\"") && strstr(line, "syscall=\"getpid\"")) {
			v = strtoull(strrchr(line, ' ') + 1, NULL, 10);
			assert_true(v >= prev); /* cumulative */
			prev = v;
			buckets++;
			if (strstr(line, "le=\"+Inf\""))
				inf = v;
		}
		if (strstr(line, "ringtrace_syscall_errors_total{comm=\"ls\"") == line &&
		    strstr(line, "syscall=\"statx\""))
			errors = strtoull(strrchr(line, ' ') + 1, NULL, 10);
	}
	assert_int_equal(buckets, 36);
	assert_int_equal(inf, 2500);
	if (!find_row(out, "ls", 0, "statx", &r))
		fail_msg("no statx row for ls in:\n%s", out);
	assert_true(r.errors >= 1);
	assert_int_equal(errors, r.errors);
	free(prom);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* -p PID: that process alone (its exec'd image included), until it exits;
 * another process's getpid calls are not counted. */
static void test_pid_scope(void **state)
{
	char *out, *cmd = NULL, args[64];
	pid_t target, other;
	struct row r;

	(void)state;
	tu_skip_unless_possible();
	target = tu_start("sleep 1; exec %s getpid 3000", tu_loadgen());
	other = tu_start("sleep 1; exec %s getpid 2000", tu_loadgen());
	snprintf(args, sizeof(args), "-p %d", (int)target);
	out = trace(0, args);
	if (!find_row(out, "loadgen", target, "getpid", &r))
		fail_msg("no getpid row for loadgen (%d) in:\n%s", (int)target, out);
	assert_int_equal(r.calls, 3000);
	if (find_row(out, "loadgen", other, "getpid", &r))
		fail_msg("process %d, out of scope, counted in:\n%s", (int)other, out);
	tu_wait_gone(other, 10);
	free(cmd);
	free(out);
}

/* -a until SIGINT, which prints the summary: every process, ours among them. */
static void test_all_until_sigint(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	pid_t tracer;
	struct row r;
	int status;

	(void)state;
	tu_skip_unless_possible();
	tracer = tu_start("exec %s trace -s -a > %s/out 2>%s/err", tu_ringtrace(), dir, dir);
	sleep(2); /* attached */
	status = tu_sh(&out, "%s getpid 4000", tu_loadgen());
	assert_int_equal(status, 0);
	free(out);
	assert_int_equal(kill(tracer, SIGINT), 0);
	assert_true(tu_wait_gone(tracer, 10));
	tu_sh(&out, "cat %s/out %s/err", dir, dir);
	if (!find_row(out, "loadgen", 0, "getpid", &r))
		fail_msg("no getpid row for loadgen in:\n%.3000s", out);
	assert_int_equal(r.calls, 4000);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Bad command lines: one line naming the cause, exit 2. */
static void test_bad_options_exit_2(void **state)
{
	const char *bad[] = {
		"",                     /* no --summary */
		"--summary",            /* no target */
		"--summary -a -p 1",    /* two scopes */
		"--summary -p abc",
		"--summary -p 0",
		"--summary -p 4194304", /* no such process */
		"--summary -p ''",
		"--summary --bogus",
		"-s -x -- true",
		"-s --metrics -- true",
		"-s --metrics /nonexistent/dir/m.prom -- true",
	};

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int status = tu_sh(&out, "%s trace %s 2>&1", tu_ringtrace(), bad[i]);

		if (status != 2 || !strstr(out, "ringtrace: ") || strchr(out, '\n') != strrchr(out, '\n'))
			fail_msg("trace %s: status %d, not 2 with one line:\n%s", bad[i], status, out);
		free(out);
	}
}

/* trace without -s (perf trace's per-call lines, which ringtrace does not
 * print): exit 2 and one line naming the command line with -s, which runs
 * and prints the summary. */
static void test_without_summary_names_the_fix(void **state)
{
	static const struct {
		const char *args, *fix;
	} runs[] = {
		{ "-- %s getpid 10", "ringtrace trace -s -- %s getpid 10" },
		{ "--histogram -- %s getpid 10", "ringtrace trace -s --histogram -- %s getpid 10" },
	};

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char args[512], fix[512], *out = NULL, *line;
		int status;

		snprintf(args, sizeof(args), runs[i].args, tu_loadgen());
		snprintf(fix, sizeof(fix), runs[i].fix, tu_loadgen());
		status = tu_sh(&out, "%s trace %s 2>&1", tu_ringtrace(), args);
		line = strstr(out, ": run ");
		if (status != 2 || strchr(out, '\n') != strrchr(out, '\n') ||
		    !strstr(out, "not each call") || !line || strncmp(line + 6, fix, strlen(fix)) ||
		    line[6 + strlen(fix)] != '\n')
			fail_msg("trace %s: status %d, not 2 with one line ending \"run %s\":\n%s", args,
				 status, fix, out);
		free(out);
		/* the fix, run as printed (ringtrace as the test's binary) */
		status = tu_sh(&out, "%s%s 2>&1", tu_ringtrace(), fix + strlen("ringtrace"));
		if (status || !strstr(out, "getpid") || !strstr(out, " events, "))
			fail_msg("%s: status %d, no summary:\n%s", fix, status, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getpid_counted_exactly),
		cmocka_unit_test(test_every_syscall_as_perf_stat_counts_it),
		cmocka_unit_test(test_errors_as_perf_trace_counts_them),
		cmocka_unit_test(test_command_children_followed),
		cmocka_unit_test(test_histogram_adds_up),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_pid_scope),
		cmocka_unit_test(test_all_until_sigint),
		cmocka_unit_test(test_bad_options_exit_2),
		cmocka_unit_test(test_without_summary_names_the_fix),
	};
	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
