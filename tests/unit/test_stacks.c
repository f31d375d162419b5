/* SPDX-License-Identifier: GPL-2.0-only */
/* test_stacks.c: script, folded stacks, --children, filters and the flame
 * graph on a synthetic recording with known callchains, a tracepoint with
 * fields and a LOST record; script and folded output match checked-in files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/script.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define CLOCK_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define TP_TYPE (SAMPLE_ID_TYPE | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define PID 4242
#define CLOCK_ID 101
#define TP_ID 102
#define TP_CONFIG 77
#define K(off) (0xffffffff81000000ULL + (off))
#define LEAF K(0x100)
#define MID K(0x200)
#define ROOT K(0x300)
#define NOWHERE 0x400000ULL /* a user address no mapping holds */

/* Expected outputs, checked in beside this file. */
#ifndef EXPECTED_DIR
#define EXPECTED_DIR "tests/unit/expected"
#endif

static const char fake_format[] =
	"name: fake_event\nID: 77\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char label[8];\toffset:12;\tsize:8;\tsigned:0;\n"
	"\nprint fmt: \"value=%d\", REC->value\n";

struct fixture {
	char *dir;
	char kallsyms[PATH_MAX];
};

static void clock_sample(struct tu_recording *r, uint32_t cpu, uint64_t time, const uint64_t *chain,
			 size_t nr)
{
	struct perf_sample s = { .misc = PERF_RECORD_MISC_KERNEL, .ip = chain[1], .pid = PID,
				 .tid = PID, .time = time, .cpu = cpu, .period = 1000000,
				 .nr_callchain = nr, .callchain = chain };

	tu_recording_sample(r, 0, &s);
}

static void tracepoint_sample(struct tu_recording *r, uint32_t cpu, uint64_t time, int32_t value,
			      const char *label)
{
	uint8_t raw[20] = { 0 };
	uint16_t type = TP_CONFIG;
	struct perf_sample s = { .misc = PERF_RECORD_MISC_USER, .ip = NOWHERE, .pid = PID,
				 .tid = PID, .time = time, .cpu = cpu, .period = 1,
				 .raw_size = sizeof(raw), .raw = raw };

	memcpy(raw, &type, 2);
	memcpy(raw + 4, &(int32_t){ PID }, 4);
	memcpy(raw + 8, &value, 4);
	memcpy(raw + 12, label, strnlen(label, 8));
	tu_recording_sample(r, 1, &s);
}

/* On CPU 0: 3 samples leaf<-mid<-root, 2 mid<-root; on CPU 1: 1 leaf<-root
 * called from an unmapped user address, 2 tracepoint hits and a LOST record
 * of 5 samples. */
static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct tu_recording r;
	struct byte_buffer td = { 0 };
	struct perf_event_attr *clock, *tp;
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "synthetic" };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .id = CLOCK_ID };
	struct perf_lost lost = { .id = CLOCK_ID, .lost = 5 };
	const uint64_t deep[] = { PERF_CONTEXT_KERNEL, LEAF + 0x10, MID + 0x20, ROOT + 0x30 };
	const uint64_t mid[] = { PERF_CONTEXT_KERNEL, MID + 0x8, ROOT + 0x8 };
	const uint64_t from_user[] = { PERF_CONTEXT_KERNEL, LEAF + 0x4, ROOT + 0x4,
				       PERF_CONTEXT_USER, NOWHERE };

	fx->dir = tu_tempdir();
	tu_recording_init(&r, 2);
	clock = tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				   CLOCK_TYPE, CLOCK_ID);
	clock->size = sizeof(*clock);
	clock->sample_period = 1000000;
	tp = tu_recording_event(&r, "fake:fake_event", PERF_TYPE_TRACEPOINT, TP_CONFIG, TP_TYPE,
				TP_ID);
	tp->size = sizeof(*tp);
	tp->sample_period = 1;
	tu_tracing_data(&td, "fake", (const char *const[]){ fake_format }, 1);
	r.header.tracing_data = td.data;
	r.header.tracing_data_size = td.len;
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, K(0), &sid), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, &sid), 0);

	for (int i = 0; i < 3; i++)
		clock_sample(&r, 0, 1000000000ULL + i * 1000, deep, 4);
	for (int i = 0; i < 2; i++)
		clock_sample(&r, 0, 1000005000ULL + i * 1000, mid, 3);
	clock_sample(&r, 1, 1000001500ULL, from_user, 5);
	tracepoint_sample(&r, 1, 1000002500ULL, -7, "alpha");
	sid.time = 1000003500ULL;
	sid.cpu = 1;
	assert_int_equal(perf_lost_encode(&r.cpu[1], SAMPLE_ID_TYPE, PERF_RECORD_LOST_SAMPLES, &lost,
					  &sid), 0);
	tracepoint_sample(&r, 1, 1000004500ULL, 42, "beta\"q");

	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kfunc_leaf\n"
		     "ffffffff81000200 t kfunc_mid\nffffffff81000300 T kfunc_root\n"
		     "ffffffff81000400 T kfunc_after\n";
	tu_recording_write(&r, fx->dir);
	snprintf(fx->kallsyms, sizeof(fx->kallsyms), "%s/kallsyms", fx->dir);
	tu_recording_free(&r);
	byte_buffer_free(&td);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static char *read_expected(const char *name)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0;
	FILE *f, *out = open_memstream(&text, &len);
	int c;

	snprintf(path, sizeof(path), "%s/%s", EXPECTED_DIR, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(f);
	fclose(out);
	return text;
}

/* Compares with the checked-in file; RINGTRACE_UPDATE_EXPECTED=1 rewrites it
 * instead (then read the difference before committing it). */
static void expect_same(const char *what, const char *got, const char *expected_file)
{
	char *expected;

	if (getenv("RINGTRACE_UPDATE_EXPECTED")) {
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", EXPECTED_DIR, expected_file);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
	}
	expected = read_expected(expected_file);

	if (strcmp(got, expected))
		fail_msg("%s differs from %s/%s:\n--- got\n%s--- expected\n%s", what, EXPECTED_DIR,
			 expected_file, got, expected);
	free(expected);
}

static char *report_text(struct fixture *fx, struct report_options *o)
{
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	o->input = fx->dir;
	o->kallsyms = fx->kallsyms;
	if (report_run(o, out, err, sizeof(err)))
		fail_msg("report: %s", err);
	fclose(out);
	return text;
}

static void test_script_matches_expected(void **state)
{
	struct fixture *fx = *state;
	struct script_options o = { .input = fx->dir, .kallsyms = fx->kallsyms };
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (script_run(&o, out, err, sizeof(err)))
		fail_msg("script: %s", err);
	fclose(out);
	expect_same("script output", text, "script.txt");
	free(text);
}

static void test_folded_matches_expected(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1, .output = REPORT_FOLDED };
	char *text = report_text(fx, &o);

	expect_same("folded stacks", text, "folded.txt");
	free(text);
}

/* --children credits every caller once: root is on every stack. */
static void test_children(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1, .children = true };
	char err[256], *text;

	assert_int_equal(report_parse_sort(&o, "sym", err, sizeof(err)), 0);
	text = report_text(fx, &o);
	if (!strstr(text, "\n   100.00%     0.00%             0  [k] kfunc_root\n") ||
	    !strstr(text, "\n    83.33%    33.33%             2  [k] kfunc_mid\n") ||
	    !strstr(text, "\n    66.67%    66.67%             4  [k] kfunc_leaf\n") ||
	    !strstr(text, "# lost per CPU: cpu1 5"))
		fail_msg("unexpected --children report:\n%s", text);
	free(text);
}

/* --cpu and --time keep the samples asked for; percentages are of those. */
static void test_filters(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1, .cpu_filter = "1" };
	char err[256], *text;

	assert_int_equal(report_parse_sort(&o, "sym", err, sizeof(err)), 0);
	text = report_text(fx, &o);
	if (!strstr(text, "# showing 1 samples of cpu 1") ||
	    !strstr(text, "\n   100.00%             1  [k] kfunc_leaf\n"))
		fail_msg("unexpected --cpu 1 report:\n%s", text);
	free(text);
	o.cpu_filter = NULL;
	assert_int_equal(report_parse_time(&o, "1.0000045,", err, sizeof(err)), 0);
	text = report_text(fx, &o);
	if (!strstr(text, "# showing 2 samples of time") ||
	    !strstr(text, "\n   100.00%             2  [k] kfunc_mid\n"))
		fail_msg("unexpected --time report:\n%s", text);
	free(text);
	assert_int_not_equal(report_parse_time(&o, "5,1", err, sizeof(err)), 0);
	assert_int_not_equal(report_parse_time(&o, "5", err, sizeof(err)), 0);
}

/* The SVG holds one frame per node with its samples and share, the
 * interactive parts, and escapes what XML needs escaped. */
static void test_flamegraph(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1, .output = REPORT_FLAMEGRAPH };
	char path[PATH_MAX], link[PATH_MAX], *svg = NULL;
	size_t len = 0;
	FILE *f, *out;
	int c;

	snprintf(path, sizeof(path), "%s/graph.svg", fx->dir);
	o.flamegraph_path = path;
	free(report_text(fx, &o));
	f = fopen(path, "r");
	assert_non_null(f);
	out = open_memstream(&svg, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(f);
	fclose(out);
	assert_non_null(strstr(svg, "<svg "));
	assert_non_null(strstr(svg, "</svg>"));
	assert_non_null(strstr(svg, "<title>all (6 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>synthetic (6 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>kfunc_root_[k] (5 samples, 83.33%)</title>"));
	assert_non_null(strstr(svg, "<title>kfunc_mid_[k] (5 samples, 83.33%)</title>"));
	assert_non_null(strstr(svg, "<title>kfunc_leaf_[k] (3 samples, 50.00%)</title>"));
	/* the geometry is in the file: "all" spans the 1180 px between the margins,
	 * kfunc_leaf_[k] half of them, and shows its name */
	assert_non_null(strstr(svg, "<rect x=\"10.00\" y=\"108.0\" width=\"1180.00\""));
	assert_non_null(strstr(svg, "width=\"590.00\" height=\"15\" fill=\"rgb("));
	assert_non_null(strstr(svg, ">kfunc_leaf_[k]</text>"));
	assert_non_null(strstr(svg, "<title>[unknown] (1 samples, 16.67%)</title>"));
	assert_non_null(strstr(svg, "function zoom("));
	assert_non_null(strstr(svg, "function search("));
	free(svg);
	/* an existing file of ours is written over, as perf writes its
	 * outputs; a symlink (to it, even) is refused */
	o.flamegraph_path = path;
	free(report_text(fx, &o));
	snprintf(link, sizeof(link), "%s/link.svg", fx->dir);
	assert_int_equal(symlink(path, link), 0);
	o.flamegraph_path = link;
	{
		char *text = NULL, err[512];
		size_t n = 0;
		FILE *sink = open_memstream(&text, &n);

		o.input = fx->dir;
		o.kallsyms = fx->kallsyms;
		assert_int_not_equal(report_run(&o, sink, err, sizeof(err)), 0);
		assert_non_null(strstr(err, "not a regular file of yours with one link (a symlink)"));
		fclose(sink);
		free(text);
	}
}

/* --flamegraph - prints the SVG where the report prints; --title, --width
 * and --inverted (the root at the top) shape it. */
static void test_flamegraph_stdout_and_options(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .pid_filter = -1, .output = REPORT_FLAMEGRAPH,
				    .flamegraph_path = "-", .title = "T <1>", .width = 600,
				    .inverted = true };
	char *svg = report_text(fx, &o);

	assert_non_null(strstr(svg, "<svg version=\"1.1\" width=\"600\" height=\"158\""));
	assert_non_null(strstr(svg, ">T &lt;1&gt;</text>"));
	/* inverted: "all" in the first row under the title, 580 px wide */
	assert_non_null(strstr(svg, "<rect x=\"10.00\" y=\"44.0\" width=\"580.00\""));
	assert_non_null(strstr(svg, "var W = 600;"));
	free(svg);
}

/* A record cut in the middle of a file is named with its file and offset. */
static void test_malformed_is_named(void **state)
{
	struct fixture *fx = *state;
	struct script_options o = { .input = fx->dir, .kallsyms = fx->kallsyms };
	struct perf_event_header bad = { PERF_RECORD_SAMPLE, 0, 4 }; /* smaller than a header */
	char path[PATH_MAX], err[512], *text = NULL;
	size_t len = 0;
	FILE *out;
	int fd;

	snprintf(path, sizeof(path), "%s/data.cpu0", fx->dir);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &bad, sizeof(bad)), (ssize_t)sizeof(bad));
	close(fd);
	out = open_memstream(&text, &len);
	assert_int_not_equal(script_run(&o, out, err, sizeof(err)), 0);
	fclose(out);
	free(text);
	if (!strstr(err, "data.cpu0") || !strstr(err, "offset"))
		fail_msg("error does not name the file and offset: %s", err);
}

/* A comm, a kernel symbol and a mapped file named with ';', spaces, a
 * newline and an ESC: the folded line has exactly its three frames and its
 * count, as docs/reports.md says and stackcollapse-perf.pl would write them
 * (the comm's spaces '_', a frame's kept, runs of them one; control bytes '_'
 * in both, never a space that hides them), and the flame graph the same
 * frames, their markup escaped. */
static void test_names_cannot_forge_frames(void **state)
{
	const uint64_t chain[] = { PERF_CONTEXT_KERNEL, LEAF + 4, PERF_CONTEXT_USER, 0x7f0000001000 };
	struct perf_comm comm = { .pid = PID, .tid = PID, .comm = "a;b c\n9 \xff" };
	struct perf_mmap m = { .pid = PID, .tid = PID, .start = 0x7f0000000000, .len = 0x10000,
			       .prot = 5, .flags = 2, .filename = "/tmp/lib x\n99;y\x1b[1m.so" };
	struct perf_sample_id sid = { .pid = PID, .tid = PID, .id = CLOCK_ID };
	struct perf_sample sample = { .misc = PERF_RECORD_MISC_KERNEL, .ip = LEAF + 4, .pid = PID,
				      .tid = PID, .time = 1000, .period = 1, .nr_callchain = 4,
				      .callchain = chain };
	struct report_options o = { .pid_filter = -1, .output = REPORT_FOLDED };
	struct fixture fx = { .dir = tu_tempdir() };
	char path[PATH_MAX], *text, *svg = NULL;
	struct tu_recording r;
	size_t len = 0;
	FILE *f, *out;
	int c;

	(void)state;
	tu_recording_init(&r, 1);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, CLOCK_TYPE,
			   CLOCK_ID);
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, K(0), &sid), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, &sid), 0);
	assert_int_equal(perf_mmap2_encode(&r.side, SAMPLE_ID_TYPE, &m, &sid), 0);
	tu_recording_sample(&r, 0, &sample);
	r.kallsyms = "ffffffff81000000 T _text\n"
		     "ffffffff81000100 T k;leaf <b>&\"'x  1\n"
		     "ffffffff81000200 T kfunc_after\n";
	tu_recording_write(&r, fx.dir);
	tu_recording_free(&r);
	snprintf(fx.kallsyms, sizeof(fx.kallsyms), "%s/kallsyms", fx.dir);

	text = report_text(&fx, &o);
	assert_string_equal(text, "a:b_c_9_\xff;[lib x_99:y_[1m.so];k:leaf <b>&\"'x 1 1\n");
	free(text);

	snprintf(path, sizeof(path), "%s/graph.svg", fx.dir);
	o.output = REPORT_FLAMEGRAPH;
	o.flamegraph_path = path;
	free(report_text(&fx, &o));
	f = fopen(path, "r");
	assert_non_null(f);
	out = open_memstream(&svg, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, out);
	fclose(f);
	fclose(out);
	/* four frames under "all": comm, the library, the symbol; invalid
	 * UTF-8 as U+FFFD, markup as entities */
	assert_non_null(strstr(svg, "<title>a:b_c_9_\xef\xbf\xbd (1 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>[lib x_99:y_[1m.so] (1 samples, 100.00%)</title>"));
	assert_non_null(strstr(svg, "data-n=\"k:leaf &lt;b&gt;&amp;&quot;&apos;x 1_[k]\""));
	assert_null(strstr(svg, "<b>"));
	{
		int frames = 0;

		for (const char *p = svg; (p = strstr(p, "<g data-x=")); p++)
			frames++;
		assert_int_equal(frames, 4);
	}
	free(svg);
	tu_rmtree(fx.dir);
	free(fx.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_script_matches_expected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_matches_expected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_children, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flamegraph, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flamegraph_stdout_and_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_is_named, setup, teardown),
		cmocka_unit_test(test_names_cannot_forge_frames),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
