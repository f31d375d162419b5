/* SPDX-License-Identifier: GPL-2.0-only */
/* test_report_diff.c: report --diff on two folded inputs with a known change
 * (normalised columns, red and blue frames) and on a recording against a
 * folded file; malformed input and a missing output are usage errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/diff.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define CLOCK_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define PID 4242
#define K(off) (0xffffffff81000000ULL + (off))

static void write_text(const char *dir, const char *name, const char *text)
{
	tu_write_file(dir, name, text, strlen(text));
}

/* Runs report --diff; its status, and what it printed in *text. */
static int diff(struct report_options *o, char **text, char *err, size_t errlen)
{
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	int ret = report_diff_run(o, out, err, errlen);

	fclose(out);
	return ret;
}

/* before: b 10, c 10; after: b 30, c 10, d 20. Normalised to after's 60
 * samples, before is b 30, c 30: b is unchanged, c shrank, d is new. */
static void test_known_change(void **state)
{
	char *dir = tu_tempdir(), before[PATH_MAX], after[PATH_MAX], err[512], *text = NULL;
	struct report_options o = { .pid_filter = -1, .output = REPORT_FOLDED };

	(void)state;
	write_text(dir, "before.folded", "a;b 10\na;c 10\n");
	write_text(dir, "after.folded", "a;d 20\na;b 30\r\na;c 10\n\n");
	snprintf(before, sizeof(before), "%s/before.folded", dir);
	snprintf(after, sizeof(after), "%s/after.folded", dir);
	o.diff_before = before;
	o.input = after;
	assert_int_equal(diff(&o, &text, err, sizeof(err)), 0);
	assert_string_equal(text, "a;b 30 30\na;c 30 10\na;d 0 20\n");
	free(text);

	o.output = REPORT_FLAMEGRAPH;
	o.flamegraph_path = "-";
	assert_int_equal(diff(&o, &text, err, sizeof(err)), 0);
	/* as wide as after; red grew, blue shrank, white unchanged */
	assert_non_null(strstr(text, "data-c=\"rgb(250,250,250)\" data-n=\"b\"><title>b (30 samples, 50.00%; before 30, +0.00%)"));
	assert_non_null(strstr(text, "data-c=\"rgb(0,0,255)\" data-n=\"c\"><title>c (10 samples, 16.67%; before 30, -33.33%)"));
	assert_non_null(strstr(text, "data-c=\"rgb(255,0,0)\" data-n=\"d\"><title>d (20 samples, 33.33%; before 0, +33.33%)"));
	assert_non_null(strstr(text, "width=\"590.00\" height=\"15\" fill=\"rgb(250,250,250)\""));
	free(text);

	/* a table is not a diff's output; a line without a count is refused */
	o.output = REPORT_TABLE;
	assert_int_equal(diff(&o, &text, err, sizeof(err)), REPORT_BAD_REQUEST);
	assert_non_null(strstr(err, "--folded or --flamegraph"));
	free(text);
	o.output = REPORT_FOLDED;
	write_text(dir, "bad.folded", "a;b 10\na;c ten\n");
	snprintf(before, sizeof(before), "%s/bad.folded", dir);
	assert_int_equal(diff(&o, &text, err, sizeof(err)), REPORT_BAD_REQUEST);
	if (!strstr(err, "bad.folded:2: not a folded stack line"))
		fail_msg("unexpected error: %s", err);
	free(text);
	tu_rmtree(dir);
	free(dir);
}

/* A recording's stacks (made as --folded makes them, filters applied)
 * against a folded file of the same stacks at twice the samples: after
 * normalising, nothing changed. */
static void test_recording_against_folded(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, K(0x110), K(0x210) };
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "worker" };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .id = 7 };
	struct report_options o = { .pid_filter = -1, .output = REPORT_FOLDED };
	char *dir = tu_tempdir(), rec[PATH_MAX], before[PATH_MAX], kallsyms[PATH_MAX + 16], err[512];
	char *text = NULL;
	struct tu_recording r;

	(void)state;
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	assert_int_equal(mkdir(rec, 0700), 0);
	tu_recording_init(&r, 1);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, CLOCK_TYPE,
			   7);
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, K(0), &sid), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, &sid), 0);
	for (int i = 0; i < 3; i++) {
		struct perf_sample s = { .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1], .pid = PID,
					 .tid = PID, .time = 1000 + i, .period = 1,
					 .nr_callchain = 3, .callchain = chain };

		tu_recording_sample(&r, 0, &s);
	}
	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kleaf\n"
		     "ffffffff81000200 T kroot\nffffffff81000300 T kafter\n";
	tu_recording_write(&r, rec);
	tu_recording_free(&r);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", rec);
	write_text(dir, "before.folded", "worker;kroot;kleaf 6\n");
	snprintf(before, sizeof(before), "%s/before.folded", dir);
	o.diff_before = before;
	o.input = rec;
	o.kallsyms = kallsyms;
	if (diff(&o, &text, err, sizeof(err)))
		fail_msg("report --diff: %s", err);
	assert_string_equal(text, "worker;kroot;kleaf 3 3\n");
	free(text);
	/* the filters apply to the recording */
	o.comm_filter = "nobody";
	assert_int_equal(diff(&o, &text, err, sizeof(err)), 0);
	assert_string_equal(text, "worker;kroot;kleaf 6 0\n");
	free(text);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_change),
		cmocka_unit_test(test_recording_against_folded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
