/* SPDX-License-Identifier: GPL-2.0-only */
/* test_progress.c: record's live progress line through a pseudo-terminal
 * (util-linux script): once a second, rewritten in place, erased before the
 * summary; nothing with --quiet or when stderr is not a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define LINE "\rringtrace: "

/* Records loadgen for 3 s with extra options, its stderr a terminal if tty;
 * what the terminal (or the pipe) got. */
static char *record(const char *dir, const char *options, bool tty)
{
	char *out = NULL, cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s record %s --force -o %s/rec -- %s --cpu %d spin 3",
		 tu_ringtrace(), options, dir, tu_loadgen(), tu_online_cpus() - 1);
	if (tty)
		rc = tu_sh(&out, "script -qfec '%s' /dev/null", cmd);
	else
		rc = tu_sh(&out, "%s 2>&1 | cat", cmd);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	return out;
}

static void test_progress_on_a_terminal(void **state)
{
	char *dir, *out;
	int lines = 0, moving = 0;
	const char *summary;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	out = record(dir, "", true);
	summary = strstr(out, "ringtrace: recorded");
	assert_non_null(summary);
	for (const char *p = out; (p = strstr(p, LINE)) && p < summary; p++) {
		double seconds, rate;
		unsigned long long samples, lost;

		if (sscanf(p, LINE "%lf s, %lf samples/s, %llu samples, %llu lost,", &seconds, &rate,
			   &samples, &lost) != 4)
			fail_msg("malformed progress line at \"%.80s\"", p + 1);
		if (!strstr(p, " MiB\033[K"))
			fail_msg("the line does not erase what follows: \"%.80s\"", p + 1);
		lines++;
		moving += rate > 0;
	}
	/* 3 s: a line at about 1 s and 2 s (3 s if the stop comes late) */
	if (lines < 2 || lines > 4 || !moving)
		fail_msg("%d progress lines (%d with samples/s above 0) in:\n%s", lines, moving, out);
	/* erased before the summary's table */
	if (!strstr(out, "\r\033[K"))
		fail_msg("the progress line is not erased:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_no_progress_quiet_or_not_a_terminal(void **state)
{
	char *dir, *out;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* --quiet: no progress, and no totals unless something was lost */
	out = record(dir, "--quiet", true);
	if (strstr(out, "samples/s") ||
	    (strstr(out, "ringtrace: recorded") && !strstr(out, "ringtrace: lost ")))
		fail_msg("--quiet on a terminal:\n%s", out);
	free(out);
	out = record(dir, "", false);
	if (strstr(out, "samples/s") || strchr(out, '\033') || !strstr(out, "ringtrace: recorded"))
		fail_msg("stderr a pipe:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* report's table goes through $PAGER when stdout is a terminal, as perf's;
 * not with --stdio, and not into a pipe. */
static void test_report_pages_on_a_terminal(void **state)
{
	char *dir, *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	free(record(dir, "-q", false));
	assert_int_equal(tu_sh(&out, "PAGER='sed s/^/PAGED:/' script -qfec '%s report %s/rec' /dev/null",
			       tu_ringtrace(), dir),
			 0);
	if (!strstr(out, "PAGED:# Overhead") && !strstr(out, "PAGED:#"))
		fail_msg("report on a terminal did not go through $PAGER:\n%.2000s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "PAGER='sed s/^/PAGED:/' script -qfec '%s report --stdio %s/rec' /dev/null",
			       tu_ringtrace(), dir),
			 0);
	if (strstr(out, "PAGED:") || !strstr(out, "# "))
		fail_msg("report --stdio on a terminal went through $PAGER:\n%.2000s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "PAGER='sed s/^/PAGED:/' %s report %s/rec | cat", tu_ringtrace(), dir),
			 0);
	if (strstr(out, "PAGED:") || !strstr(out, "# "))
		fail_msg("report into a pipe went through $PAGER:\n%.2000s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_on_a_terminal),
		cmocka_unit_test(test_no_progress_quiet_or_not_a_terminal),
		cmocka_unit_test(test_report_pages_on_a_terminal),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
