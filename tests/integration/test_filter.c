/* SPDX-License-Identifier: GPL-2.0-only */
/* test_filter.c: record --filter against perf stat --filter on the same
 * workload (counted by both at once), and the faults in filters it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_util.h"

/* The samples of ringtrace's summary in out; -1 if there is none. */
static long long summary_samples(const char *out)
{
	const char *p = strstr(out, "ringtrace: recorded");
	unsigned long long s;

	if (!p || !(p = strstr(p, ": ")) || !(p = strstr(p + 2, ": ")) ||
	    sscanf(p, ": %llu samples", &s) != 1)
		return -1;
	return (long long)s;
}

/* perf stat -x,'s count of event in out; -1 if there is none. */
static long long perf_stat_count(const char *out, const char *event)
{
	char needle[160];
	const char *p;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	if (!(p = strstr(out, needle)))
		return -1;
	while (p > out && p[-1] != '\n')
		p--;
	return strtoll(p, NULL, 10);
}

/* ringtrace records event with filter system-wide while CMD runs, inside a
 * perf stat -a counting the same event with the same filter: perf's count
 * starts before and ends after ringtrace's, and CMD is all that matches. */
static void same_count_as_perf(const char *event, const char *filter, const char *cmd,
			       long long expected)
{
	char *dir = tu_tempdir(), *out = NULL;
	long long ours, perfs;
	int status;

	status = tu_sh(&out, "perf stat -a -x, -e %s --filter '%s' -- %s record -a -e %s "
			     "--filter '%s' -o %s/r -- %s 2>&1",
		       event, filter, tu_ringtrace(), event, filter, dir, cmd);
	if (status)
		fail_msg("record -e %s --filter '%s' -- %s failed:\n%s", event, filter, cmd, out);
	ours = summary_samples(out);
	perfs = perf_stat_count(out, event);
	if (ours < 0 || perfs < 0)
		fail_msg("no count in:\n%s", out);
	if (ours != perfs)
		fail_msg("--filter '%s' on %s: ringtrace %lld samples, perf stat %lld\n%s", filter,
			 event, ours, perfs, out);
	if (expected >= 0 && ours != expected)
		fail_msg("--filter '%s' on %s: %lld samples where %s makes %lld\n%s", filter, event,
			 ours, cmd, expected, out);
	if (expected < 0 && ours == 0)
		fail_msg("--filter '%s' on %s kept nothing: the check cannot tell\n%s", filter, event,
			 out);
	if (!strstr(out, "ringtrace: --filter left out"))
		fail_msg("no count of what --filter left out:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Preemptions of a process that spins beside its twin on one CPU: numbers
 * (prev_state, signed long) and a char array (prev_comm). */
static void test_sched_switch_as_perf(void **state)
{
	char cmd[512];

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	snprintf(cmd, sizeof(cmd), "%s --name rtf_spin --cpu 0 --threads 2 spin 0.5", tu_loadgen());
	same_count_as_perf("sched:sched_switch", "prev_state == 0 && prev_comm == \"rtf_spin\"",
			   cmd, -1);
	same_count_as_perf("sched:sched_switch",
			   "(prev_comm == \"rtf_spin\" || next_comm == \"rtf_spin\") && !(prev_state & 1)",
			   cmd, -1);
}

/* comm (the current task's) as a glob, common_pid, cpu, and ! and || */
static void test_comm_glob_and_common_fields_as_perf(void **state)
{
	char cmd[512];

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	snprintf(cmd, sizeof(cmd), "sh -c '%s --name rtf_get getpid 3000; %s --name rtf_got getpid 1000'",
		 tu_loadgen(), tu_loadgen());
	same_count_as_perf("syscalls:sys_enter_getpid", "comm ~ \"rtf_g?t\"", cmd, 4000);
	same_count_as_perf("syscalls:sys_enter_getpid", "comm ~ \"*_ge*\" && common_pid != 0", cmd,
			   3000);
	same_count_as_perf("syscalls:sys_enter_getpid", "!(COMM != \"rtf_got\") || cpu > 4096", cmd,
			   1000);
}

/* A user string read through a char * (filename.ustring), and a
 * __data_loc string (sched_process_exec's filename). */
static void test_strings_of_records_as_perf(void **state)
{
	char *dir = tu_tempdir(), cmd[1024];

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'touch %s/rtf_a1 %s/rtf_a2 %s/rtf_b1; cat %s/rtf_a1 %s/rtf_b1 %s/rtf_a2'", dir,
		 dir, dir, dir, dir, dir);
	/* touch opens two of them, cat two */
	same_count_as_perf("syscalls:sys_enter_openat", "filename.ustring ~ \"*/rtf_a?\"", cmd, 4);
	/* a copy of true by a name of the test's own: the machine's other
	 * work may run /bin/true meanwhile (perf stat counts from before to
	 * after ringtrace) */
	snprintf(cmd, sizeof(cmd), "cp /bin/true %s/rtf_true", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "sh -c '%s/rtf_true; %s/rtf_true; /bin/echo >/dev/null'", dir,
		 dir);
	same_count_as_perf("sched:sched_process_exec", "filename ~ \"*/rtf_true\"", cmd, 2);
	tu_rmtree(dir);
	free(dir);
}

/* One process's opens by common_pid: it waits on a FIFO until both tools
 * count, then execs cat (the same pid); the recorded command lets it go and
 * waits for it to end. */
static void test_common_pid_as_perf(void **state)
{
	char *dir = tu_tempdir(), cmd[1024], filter[64];
	pid_t pid;

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	snprintf(cmd, sizeof(cmd), "mkfifo %s/go", dir);
	assert_int_equal(system(cmd), 0);
	pid = tu_start("read x < %s/go; exec cat /etc/hostname /etc/passwd /etc/hostname", dir);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)pid);
	snprintf(cmd, sizeof(cmd),
		 "sh -c 'echo go > %s/go; while [ \"$(cut -d\\) -f2 /proc/%d/stat | cut -c2)\" != Z ]; "
		 "do sleep 0.01; done'", dir, (int)pid);
	same_count_as_perf("syscalls:sys_enter_openat", filter, cmd, -1);
	waitpid(pid, NULL, 0);
	tu_rmtree(dir);
	free(dir);
}

/* "*x" matches the end of the string; the kernel's own filter compares the
 * end of a char array's whole buffer (regex_match_end with the field's
 * size), so perf stat counts none of these: README says so. */
static void test_glob_matches_the_string_end(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	if (tu_sh(&out, "%s record -a -e syscalls:sys_enter_getpid --filter 'comm ~ \"*_get\"' "
			"-o %s/r -- %s --name rtf_get getpid 3000 2>&1",
		  tu_ringtrace(), dir, tu_loadgen()))
		fail_msg("record failed:\n%s", out);
	if (summary_samples(out) != 3000)
		fail_msg("comm ~ \"*_get\" kept not the 3000 getpids of rtf_get:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A glob of events takes the filter for each: -c counts only what passes,
 * and each sample kept carries the period -c gave. */
static void test_filter_before_period(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	if (tu_sh(&out, "%s record -a -e 'syscalls:sys_enter_getp*' --filter 'comm == \"rtf_get\"' "
			"-c 10 -o %s/r -- %s --name rtf_get getpid 3000 2>&1",
		  tu_ringtrace(), dir, tu_loadgen()))
		fail_msg("record failed:\n%s", out);
	if (summary_samples(out) != 300)
		fail_msg("-c 10 of 3000 getpids passing the filter: not 300 samples\n%s", out);
	free(out);
	/* each kept hit stands for 10: perf's event count is the hits */
	assert_int_equal(tu_sh(&out, "perf report -i %s/r --stdio 2>/dev/null | "
				     "grep -c 'Event count (approx.): 3000$'", dir), 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A filter is for every event of the -e before it, as perf's: both events
 * of a list, none of an -e before. */
static void test_filter_takes_the_whole_e(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	if (tu_sh(&out, "%s record -e syscalls:sys_enter_getppid -e "
			"syscalls:sys_enter_getpid,sched:sched_switch --filter 'common_pid == 0 && "
			"common_pid == 1' -o %s/r -- %s getpid-getppid 1000 2>&1",
		  tu_ringtrace(), dir, tu_loadgen()))
		fail_msg("record failed:\n%s", out);
	/* one getppid, from the first -e; nothing of the filtered two */
	if (summary_samples(out) != 1)
		fail_msg("the filter was not given to both events of the last -e alone:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Each fault is one line naming its column, and exit status 2. */
static void test_malformed_filters(void **state)
{
	static const struct {
		const char *filter;
		const char *says;
	} bad[] = {
		{ "prev_stat == 0", "column 1: no field prev_stat" },
		{ "prev_state ==", "column 14: expected a number" },
		{ "prev_state", "column 11: expected an operator" },
		{ "== 0", "column 1: expected a field name" },
		{ "(prev_pid > 0", "column 14: expected )" },
		{ "prev_pid > 0)", "column 13: unexpected" },
		{ "prev_comm < \"a\"", "column 11: prev_comm is a string" },
		{ "prev_state == \"x\"", "column 15: the field is a number" },
		{ "prev_comm == x", "column 14: quote the string" },
		{ "prev_comm == \"x", "column 14: the string has no closing" },
		{ "prev_comm ~ \"[ab]\"", "column 14: character classes" },
		{ "prev_state ~ 1", "column 12: prev_state is a number" },
		{ "prev_pid == 12abc", "column 15: not a number" },
		{ "prev_pid == 99999999999999999999", "column 13: the number is out of range" },
		{ "prev_pid = 1", "column 10: expected an operator" },
		{ "prev_pid > 0 &&", "column 16: expected a comparison" },
		{ "prev_pid > 0 | 1", "column 14: unexpected" },
		{ "prev_comm.ustring == \"a\"", "column 1: .ustring reads a char * field" },
		{ "prev_pid.function == 1", "column 9: unknown field modifier" },
		{ "!", "column 2: expected a comparison" },
		{ "prev_pid>0||prev_pid>1||prev_pid>2||prev_pid>3||prev_pid>4||prev_pid>5||"
		  "prev_pid>6||prev_pid>7||prev_pid>8||prev_pid>9||prev_pid>10||prev_pid>11||"
		  "prev_pid>12||prev_pid>13||prev_pid>14||prev_pid>15||prev_pid>16",
		  "more than 16 comparisons" },
	};
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible_at(__FILE__, __LINE__);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int status = tu_sh(&out, "%s record -e sched:sched_switch --filter '%s' -o /nonexistent/x -- true 2>&1",
				   tu_ringtrace(), bad[i].filter);

		if (status != 2 || !strstr(out, bad[i].says) || strchr(out, '\n') != strrchr(out, '\n'))
			fail_msg("--filter '%s': exit %d, wanted 2 and one line saying \"%s\":\n%s",
				 bad[i].filter, status, bad[i].says, out);
		free(out);
	}
	if (tu_sh(&out, "%s record --filter 'common_pid == 1' -e sched:sched_switch -- true 2>&1",
		  tu_ringtrace()) != 2 || !strstr(out, "no -e before it"))
		fail_msg("--filter before any -e:\n%s", out);
	free(out);
	if (tu_sh(&out, "%s record -e cpu-clock --filter 'common_pid == 1' -- true 2>&1",
		  tu_ringtrace()) != 2 || !strstr(out, "not a tracepoint"))
		fail_msg("--filter after cpu-clock:\n%s", out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_switch_as_perf),
		cmocka_unit_test(test_comm_glob_and_common_fields_as_perf),
		cmocka_unit_test(test_strings_of_records_as_perf),
		cmocka_unit_test(test_common_pid_as_perf),
		cmocka_unit_test(test_glob_matches_the_string_end),
		cmocka_unit_test(test_filter_before_period),
		cmocka_unit_test(test_filter_takes_the_whole_e),
		cmocka_unit_test(test_malformed_filters),
	};

	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
