/* SPDX-License-Identifier: GPL-2.0-only */
/* test_rotation.c: record --switch-output, --switch-max-files and --max-size:
 * every output a recording perf reads alone, and no sample lost at a switch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define GETPID_EVENT "syscalls:sys_enter_getpid"
#define MAX_OUTPUTS 512

/* The outputs base.YYYYmmddHHMMSSCC in dir, sorted (oldest first); each name
 * is checked to be perf's: 16 digits after the base and a dot. */
static unsigned int list_outputs(const char *dir, const char *base, char **names)
{
	struct dirent **ents;
	size_t blen = strlen(base);
	unsigned int nr = 0;
	int n = scandir(dir, &ents, NULL, alphasort);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (!strncmp(name, base, blen) && name[blen] == '.') {
			assert_int_equal(strlen(name + blen + 1), 16);
			assert_int_equal(strspn(name + blen + 1, "0123456789"), 16);
			assert_true(nr < MAX_OUTPUTS);
			if (asprintf(&names[nr++], "%s/%s", dir, name) < 0)
				fail();
		}
		free(ents[i]);
	}
	free(ents);
	return nr;
}

static void free_outputs(char **names, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		free(names[i]);
}

/* Lines perf script -i prints for output's samples of event (of comm, if
 * not NULL, in the same line). */
static unsigned long perf_script_count(const char *output, const char *event, const char *comm)
{
	char *out = NULL;
	unsigned long n = 0;
	int rc = tu_sh(&out, "perf script -i %s 2>/dev/null | grep -F '%s' | grep -cF '%s'", output,
		       event, comm ? comm : event);

	if (rc > 1)
		fail_msg("perf script -i %s failed (%d)", output, rc);
	n = strtoul(out, NULL, 10);
	free(out);
	return n;
}

static unsigned long ringtrace_script_count(const char *output, const char *event)
{
	char *out = NULL;
	unsigned long n;
	int rc = tu_sh(&out, "%s script %s | grep -cF '%s'", tu_ringtrace(), output, event);

	if (rc > 1)
		fail_msg("ringtrace script %s failed (%d)", output, rc);
	n = strtoul(out, NULL, 10);
	free(out);
	return n;
}

/* Each output: a whole recording (header, per-CPU files, totals; 0700 and
 * 0600) whose samples perf script and ringtrace script print alike, every
 * one named by its comm (the side-band carried into it). Returns the samples
 * and adds the lost ones to *lost. */
static uint64_t check_output(const char *output, const char *comm, uint64_t *lost)
{
	struct tu_record_counts c;
	struct stat st;
	unsigned long perf_n, ours, named;
	char path[4096];

	assert_int_equal(stat(output, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/data", output);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/totals", output);
	assert_int_equal(stat(path, &st), 0);
	tu_count_records(output, TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	perf_n = perf_script_count(output, GETPID_EVENT, NULL);
	named = perf_script_count(output, GETPID_EVENT, comm);
	ours = ringtrace_script_count(output, GETPID_EVENT);
	print_message("%s: %llu samples (perf script %lu, named %s %lu, ringtrace script %lu), %llu lost\n",
		      output, (unsigned long long)c.samples, perf_n, comm, named, ours,
		      (unsigned long long)c.lost_samples);
	assert_int_equal(perf_n, c.samples);
	assert_int_equal(ours, c.samples);
	assert_int_equal(named, c.samples);
	*lost += c.lost_samples + c.lost;
	return c.samples;
}

/* --switch-output=1M over the getpid calls of a generator paced at 50 000 a
 * second for 4 s (~16 MB of samples): several outputs, each read alone, and
 * over all of them every call made a sample, none lost. The pace gives the
 * drain what a switch needs on any host: the default ring holds ~130 ms of
 * these calls, where a generator flat out (8 M/s on a host of 120 ns getpid)
 * overflowed it at every switch and measured only the host's speed. */
static void test_switch_output_size_loses_nothing(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *calls_line, base[4096];
	uint64_t samples = 0, lost = 0;
	unsigned long calls;
	unsigned int nr;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out, "cd %s && %s record -e " GETPID_EVENT " --switch-output=1M -o r.data -- %s getpid-rate 50000 4 2>&1",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-output=1M failed (%d):\n%s", rc, out);
	calls_line = strstr(out, "loadgen: calls=");
	assert_non_null(calls_line);
	calls = strtoul(calls_line + strlen("loadgen: calls="), NULL, 10);
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs:\n%s", nr, out);
	if (nr < 3)
		fail_msg("%lu getpid samples (~80 bytes each) in outputs of 1M: %u outputs", calls, nr);
	for (unsigned int i = 0; i < nr; i++)
		samples += check_output(names[i], "loadgen", &lost);
	/* the outputs alone: no r.data beside them (dir's, not the test's cwd's) */
	snprintf(base, sizeof(base), "%s/r.data", dir);
	assert_int_equal(access(base, F_OK) == 0 ? 1 : 0, 0);
	assert_int_equal(samples + lost, calls);
	assert_int_equal(lost, 0);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --switch-output=signal: each SIGUSR2 ends an output, and what the
 * generator made is all there. */
static void test_switch_output_on_sigusr2(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *calls_line;
	uint64_t samples = 0, lost = 0;
	unsigned long calls;
	unsigned int nr;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	/* the generator (20000 calls/s for 4 s) is the recording's command */
	rc = tu_sh(&out,
		   "cd %s && { %s record -e " GETPID_EVENT " --switch-output=signal -o r.data -- "
		   "%s getpid-rate 20000 4 2>&1 & R=$!; sleep 1.5; kill -USR2 $R; sleep 1; "
		   "kill -USR2 $R; wait $R; }",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-output=signal did not end with status 0 (%d):\n%s", rc, out);
	print_message("%s", out);
	calls_line = strstr(out, "loadgen: calls=");
	assert_non_null(calls_line);
	calls = strtoul(calls_line + strlen("loadgen: calls="), NULL, 10);
	assert_true(calls > 0);
	nr = list_outputs(dir, "r.data", names);
	assert_int_equal(nr, 3);
	for (unsigned int i = 0; i < nr; i++) {
		uint64_t n = check_output(names[i], "loadgen", &lost);

		/* the generator ran across all three */
		assert_true(n > 0);
		samples += n;
	}
	assert_int_equal(samples + lost, calls);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* SIGINT ends a recording that switches outputs every 100K under a
 * generator flat out within a second, the outputs all whole. */
static void test_sigint_while_switching(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS];
	struct tu_record_counts c;
	unsigned int nr;
	int rc, ms;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out,
		   "cd %s && { %s getpid-rate 0 30 2>/dev/null & L=$!; %s record -a -e " GETPID_EVENT
		   " --switch-output=100K -q -o r.data 2>&1 & R=$!; sleep 2; t0=$(date +%%s%%N); "
		   "kill -INT $R; wait $R; s=$?; echo \"stopped in $((($(date +%%s%%N) - t0) / 1000000)) ms\"; "
		   "kill $L; wait $L 2>/dev/null; exit $s; }",
		   dir, tu_loadgen(), tu_ringtrace());
	if (rc != 0)
		fail_msg("record --switch-output=100K did not end with status 0 on SIGINT (%d):\n%s", rc,
			 out);
	ms = atoi(strstr(out, "stopped in ") + strlen("stopped in "));
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs, stopped %d ms after SIGINT\n", nr, ms);
	assert_true(nr > 2);
	assert_true(ms < 1000);
	for (unsigned int i = 0; i < nr; i++)
		tu_count_records(names[i], TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --switch-max-files 2 keeps the newest two outputs, as perf does. */
static void test_switch_max_files_keeps_newest(void **state)
{
	char *dir, *out = NULL, *names[MAX_OUTPUTS], *last;
	unsigned int nr, made = 0;
	uint64_t lost = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out, "cd %s && %s record -e " GETPID_EVENT " --switch-output=100K --switch-max-files 2 -o r.data -- %s getpid 100000 2>&1",
		   dir, tu_ringtrace(), tu_loadgen());
	if (rc != 0)
		fail_msg("record --switch-max-files 2 failed (%d):\n%s", rc, out);
	for (const char *p = out; (p = strstr(p, "ringtrace: output ")); p++)
		made++;
	nr = list_outputs(dir, "r.data", names);
	print_message("%u outputs made, %u kept\n", made, nr);
	assert_true(made > 2);
	assert_int_equal(nr, 2);
	/* the newest: the last the recording named */
	last = strrchr(names[1], '/') + 1;
	assert_non_null(strstr(out, last));
	for (unsigned int i = 0; i < nr; i++)
		check_output(names[i], "loadgen", &lost);
	free_outputs(names, nr);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* --max-size ends the recording as SIGINT would: status 0, the totals
 * printed and in DIR/totals, exactly what the files hold. */
static void test_max_size_stops_cleanly(void **state)
{
	char *dir, *out = NULL, *line;
	struct tu_record_counts c;
	unsigned long long printed_samples, printed_lost;
	struct stat st;
	char path[4096];
	uint64_t bytes = 0;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out, "%s getpid-rate 0 30 2>/dev/null & L=$!; "
		   "timeout 20 %s record -a -e " GETPID_EVENT " --max-size 1M --force -o %s 2>&1; s=$?; "
		   "kill $L; wait $L 2>/dev/null; exit $s",
		   tu_loadgen(), tu_ringtrace(), dir);
	if (rc != 0)
		fail_msg("record --max-size 1M did not end by itself with status 0 (%d):\n%s", rc, out);
	print_message("%s", out);
	assert_non_null(strstr(out, "reached --max-size"));
	line = strstr(out, "ringtrace: recorded ");
	assert_non_null(line);
	assert_int_equal(sscanf(strstr(line + strlen("ringtrace: "), ": ") + 2, "%llu samples, %llu lost", &printed_samples,
				&printed_lost), 2);
	tu_count_records(dir, TU_RECORDS_STRICT | TU_RECORDS_WHOLE, &c);
	assert_int_equal(c.samples, printed_samples);
	assert_int_equal(c.lost_samples + c.lost, printed_lost);
	for (int cpu = 0; cpu < tu_online_cpus(); cpu++) {
		snprintf(path, sizeof(path), "%s/data.cpu%d", dir, cpu);
		if (!stat(path, &st))
			bytes += (uint64_t)st.st_size;
	}
	assert_true(bytes >= (1 << 20));
	snprintf(path, sizeof(path), "%s/totals", dir);
	assert_int_equal(stat(path, &st), 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Bad values: one line naming the cause and the fix, exit status 2. */
static void test_bad_values_exit_2(void **state)
{
	static const char *const bad[] = {
		"--switch-output=1X", "--switch-output=10", "--switch-output=0s",
		"--switch-output=100", "--max-size 1T", "--max-size=", "--switch-max-files 2",
		"--switch-output=1M --switch-max-files 0", "--switch-output=1M --overwrite",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out = NULL;
		int rc = tu_sh(&out, "%s record %s -o /nonexistent/x -- true 2>&1", tu_ringtrace(),
			       bad[i]);

		if (rc != 2 || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("record %s: status %d, wanted 2 and one line:\n%s", bad[i], rc, out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_output_size_loses_nothing),
		cmocka_unit_test(test_switch_output_on_sigusr2),
		cmocka_unit_test(test_sigint_while_switching),
		cmocka_unit_test(test_switch_max_files_keeps_newest),
		cmocka_unit_test(test_max_size_stops_cleanly),
		cmocka_unit_test(test_bad_values_exit_2),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
