/* SPDX-License-Identifier: GPL-2.0-only */
/* test_modes.c: record's modes as perf defines them, against perf on the same
 * workload: -i follows no new thread or child, a command is sampled only from
 * its exec on, --call-graph takes its value as perf parses it. */
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
#include <unistd.h>

#include "test_util.h"

/* Syscalls that tell threads and children apart: a thread ends with exit, a
 * process with exit_group; clone3 starts a thread, clone a child, wait4
 * waits for it; read and execve run in ringtrace's child before the exec. */
#define TASK_EVENTS                                                                     \
	"syscalls:sys_enter_exit,syscalls:sys_enter_exit_group,syscalls:sys_enter_wait4," \
	"syscalls:sys_enter_clone3,syscalls:sys_enter_clone,syscalls:sys_enter_read,"    \
	"syscalls:sys_enter_execve,syscalls:sys_exit_execve"

/* `perf script -F comm,event` of a recording of `ARGS -- CMD` by ringtrace
 * and by perf, each counted by line: equal, and returned (ringtrace's). */
static char *same_as_perf(const char *args, const char *cmd)
{
	char *dir = tu_tempdir(), *ours = NULL, *perfs = NULL, *out = NULL;

	if (tu_sh(&out, "%s record --force -o %s/rt %s -e " TASK_EVENTS " -- %s 2>&1 >/dev/null",
		  tu_ringtrace(), dir, args, cmd))
		fail_msg("ringtrace record %s -- %s:\n%s", args, cmd, out);
	free(out);
	out = NULL;
	if (tu_sh(&out, "perf record -q -o %s/perf.data %s -e " TASK_EVENTS " -- %s 2>&1 >/dev/null",
		  dir, args, cmd))
		fail_msg("perf record %s -- %s:\n%s", args, cmd, out);
	free(out);
	assert_int_equal(tu_sh(&ours, "perf script -i %s/rt -F comm,event 2>&1 | sort | uniq -c", dir),
			 0);
	assert_int_equal(tu_sh(&perfs, "perf script -i %s/perf.data -F comm,event 2>&1 | sort | uniq -c",
			       dir),
			 0);
	print_message("record %s -- %s:\n%s", args, cmd, ours);
	if (strcmp(ours, perfs))
		fail_msg("ringtrace and perf differ:\n--- ringtrace\n%s--- perf\n%s", ours, perfs);
	free(perfs);
	tu_rmtree(dir);
	free(dir);
	return ours;
}

/* -i: perf's attr.inherit = 0: the threads a command starts and the
 * children it forks are not recorded; without it they are. */
static void test_no_inherit_follows_no_new_task(void **state)
{
	char cmd[4200], *text;

	(void)state;
	tu_skip_unless_possible();
	snprintf(cmd, sizeof(cmd), "%s --threads 2 spin 0.2", tu_loadgen());
	text = same_as_perf("", cmd);
	assert_non_null(strstr(text, "syscalls:sys_enter_exit:"));
	free(text);
	text = same_as_perf("-i", cmd);
	assert_non_null(strstr(text, "syscalls:sys_enter_clone3"));
	assert_null(strstr(text, "syscalls:sys_enter_exit:"));
	free(text);

	snprintf(cmd, sizeof(cmd), "%s fork 0.2", tu_loadgen());
	text = same_as_perf("", cmd);
	assert_non_null(strstr(text, "syscalls:sys_enter_exit:"));
	free(text);
	text = same_as_perf("-i", cmd);
	assert_non_null(strstr(text, "syscalls:sys_enter_wait4"));
	assert_null(strstr(text, "syscalls:sys_enter_exit:"));
	free(text);
}

/* -p PID -i: the process's threads now, not the children it forks later. */
static void test_pid_no_inherit(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, rec[PATH_MAX];
	struct tu_record_counts c[2];
	pid_t shell;

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < 2; i++) {
		/* the child forked once the recording runs (its workload, started
		 * after the attach, makes the file): a sanitized start on a busy
		 * machine outlasted a fixed half second */
		char started[PATH_MAX + 16];

		/* the last round's file gone before this round's shell looks
		 * for it (it ran at once, gone before the recording began) */
		snprintf(started, sizeof(started), "%s/started", dir);
		unlink(started);
		shell = tu_start("for t in $(seq 600); do [ -e %s ] && break; sleep 0.1; done; "
				 "%s getpid 1000", started, tu_loadgen());
		out = NULL;
		if (tu_sh(&out, "%s record --force -o %s/rec -p %d %s -e syscalls:sys_enter_getpid "
				"-- sh -c 'touch %s; sleep 1.5' 2>&1",
			  tu_ringtrace(), dir, (int)shell, i ? "-i" : "", started)) {
			kill(shell, SIGKILL);
			tu_wait_gone(shell, 5);
			fail_msg("record -p %d:\n%s", (int)shell, out);
		}
		tu_wait_gone(shell, 5);
		free(out);
		snprintf(rec, sizeof(rec), "%s/rec", dir);
		tu_count_records(rec, TU_RECORDS_STRICT, &c[i]);
	}
	print_message("-p: %llu getpid samples of the child; -p -i: %llu\n",
		      (unsigned long long)c[0].samples, (unsigned long long)c[1].samples);
	assert_int_equal(c[0].samples, 1000);
	assert_int_equal(c[1].samples, 0);
	tu_rmtree(dir);
	free(dir);
}

/* A command is recorded from its exec on, as perf's enable_on_exec: not
 * ringtrace's child waiting to exec it (its read, its execve), nor a
 * shell's work before it execs the command. */
static void test_command_sampled_from_exec(void **state)
{
	char cmd[4200], *text;

	(void)state;
	tu_skip_unless_possible();
	snprintf(cmd, sizeof(cmd), "%s getpid 10", tu_loadgen());
	text = same_as_perf("", cmd);
	assert_null(strstr(text, "ringtrace"));
	assert_null(strstr(text, "sys_enter_execve"));
	assert_non_null(strstr(text, "syscalls:sys_exit_execve"));
	free(text);
	/* a shell that execs: its samples from its own exec on, under its name */
	snprintf(cmd, sizeof(cmd), "sh -c 'exec %s getpid 10'", tu_loadgen());
	text = same_as_perf("", cmd);
	assert_null(strstr(text, "ringtrace"));
	free(text);
}

/* --call-graph MODE[,SIZE], with a space or "=", with or without "--" before
 * the command: the same attr as perf record's (callchain, user regs and
 * stack size), and the command still runs. */
static void test_call_graph_parses_as_perf(void **state)
{
	static const char *const forms[] = {
		"--call-graph dwarf", "--call-graph=fp", "--call-graph dwarf,4096",
		"--call-graph=dwarf,4100", "--call-graph fp",
	};
	char *dir;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char *ours = NULL, *perfs = NULL, *out = NULL;
		const char *attr = "perf evlist -v -i %s 2>/dev/null | head -1 | "
				   "grep -o 'sample_type: [A-Z_|]*\\|sample_stack_user: [0-9]*' | "
				   "sed 's/|CPU//; s/|IDENTIFIER//; s/|ADDR//; s/|DATA_SRC//'";
		char cmd[512];

		assert_int_equal(tu_sh(&out, "%s record --force -o %s/rt %s -F 99 true 2>&1 && "
					     "perf record -q -o %s/perf.data %s -F 99 true 2>&1",
				       tu_ringtrace(), dir, forms[i], dir, forms[i]),
				 0);
		free(out);
		snprintf(cmd, sizeof(cmd), attr, "%s/rt");
		assert_int_equal(tu_sh(&ours, cmd, dir), 0);
		snprintf(cmd, sizeof(cmd), attr, "%s/perf.data");
		assert_int_equal(tu_sh(&perfs, cmd, dir), 0);
		print_message("%s:\n%s", forms[i], ours);
		if (strcmp(ours, perfs))
			fail_msg("%s: ringtrace's attr\n%sperf's\n%s", forms[i], ours, perfs);
		free(ours);
		free(perfs);
	}
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_inherit_follows_no_new_task),
		cmocka_unit_test(test_pid_no_inherit),
		cmocka_unit_test(test_command_sampled_from_exec),
		cmocka_unit_test(test_call_graph_parses_as_perf),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
