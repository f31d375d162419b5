/* SPDX-License-Identifier: GPL-2.0-only */
/* test_report.c: report on a synthetic recording of this very binary: symbols
 * resolve through MMAP2 and kallsyms, rows and filters are right, perf reads it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "report/report.h"
#include "test_util.h"

#define SAMPLE_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define SAMPLE_TYPE (PERF_SAMPLE_IP | SAMPLE_ID_TYPE | PERF_SAMPLE_PERIOD)
#define SYNTHETIC_PID 4242
#define KERNEL_TEXT 0xffffffff81000000ULL

__attribute__((noinline)) int known_function_alpha(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int known_function_beta(int x)
{
	return x * 5 + 2;
}

struct fixture {
	char *dir;
	char kallsyms[PATH_MAX];
};

/* The executable mapping of this binary that holds addr. */
static void find_own_mapping(uint64_t addr, struct perf_mmap *m, char *path, size_t pathlen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int consumed = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start, &end, perms, &pgoff,
			   &consumed) < 4)
			continue;
		if (addr < start || addr >= end)
			continue;
		snprintf(path, pathlen, "%s", line + consumed);
		path[strcspn(path, "\n")] = '\0';
		memset(m, 0, sizeof(*m));
		m->pid = m->tid = SYNTHETIC_PID;
		m->start = start;
		m->len = end - start;
		m->pgoff = pgoff;
		m->prot = PROT_READ | PROT_EXEC;
		m->flags = MAP_PRIVATE;
		m->filename = path;
		fclose(f);
		return;
	}
	fclose(f);
	fail_msg("no mapping holds %llx", (unsigned long long)addr);
}

static void add_sample(struct tu_recording *r, uint16_t misc, uint64_t ip, uint32_t pid,
		       uint64_t time, uint32_t cpu)
{
	struct perf_sample s = { .misc = misc, .ip = ip, .pid = pid, .tid = pid, .time = time,
				 .cpu = cpu, .period = 1000000 };

	tu_recording_sample(r, 0, &s);
}

/* 30 samples in alpha, 10 in beta, 1 unmapped, 5 in a kernel function, over
 * two CPU files; the side-band in the header file. */
static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct tu_recording r;
	struct perf_event_attr *attr;
	struct perf_comm comm = { .pid = SYNTHETIC_PID, .tid = SYNTHETIC_PID, .comm = "synthetic" };
	uint64_t alpha = (uintptr_t)known_function_alpha, beta = (uintptr_t)known_function_beta;
	struct perf_mmap m;
	char path[PATH_MAX];
	uint64_t t = 1000;

	fx->dir = tu_tempdir();
	find_own_mapping(alpha, &m, path, sizeof(path));
	tu_recording_init(&r, 2);
	attr = tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				  SAMPLE_TYPE, 0);
	attr->sample_period = 1000000;
	attr->exclude_guest = 1;
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, KERNEL_TEXT, NULL), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, NULL), 0);
	assert_int_equal(perf_mmap2_encode(&r.side, SAMPLE_ID_TYPE, &m, NULL), 0);

	for (int i = 0; i < 30; i++)
		add_sample(&r, PERF_RECORD_MISC_USER, alpha + 1, SYNTHETIC_PID, t++, i % 2);
	for (int i = 0; i < 10; i++)
		add_sample(&r, PERF_RECORD_MISC_USER, beta + 2, SYNTHETIC_PID, t++, 0);
	add_sample(&r, PERF_RECORD_MISC_USER, 0x10, SYNTHETIC_PID, t++, 1);
	for (int i = 0; i < 5; i++)
		add_sample(&r, PERF_RECORD_MISC_KERNEL, KERNEL_TEXT + 0x110, 0, t++, 1);

	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kfunc_synthetic\n"
		     "ffffffff81000200 t kfunc_next\n";
	tu_recording_write(&r, fx->dir);
	snprintf(fx->kallsyms, sizeof(fx->kallsyms), "%s/kallsyms", fx->dir);
	tu_recording_free(&r);
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

/* Runs report into a string. */
static char *report_text(struct fixture *fx, const char *sort, const char *comm, int64_t pid)
{
	struct report_options o = { .input = fx->dir, .pid_filter = pid, .comm_filter = comm,
				    .kallsyms = fx->kallsyms };
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(report_parse_sort(&o, sort, err, sizeof(err)), 0);
	assert_int_equal(report_run(&o, out, err, sizeof(err)), 0);
	fclose(out);
	return text;
}

/* The first data row (after the '#' lines), or the n-th. */
static const char *row(const char *text, int n)
{
	const char *line = text;

	while (line && *line) {
		if (*line != '#' && n-- == 0)
			return line;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return "";
}

static void expect_row(const char *text, int n, const char *pct, const char *samples,
		       const char *what)
{
	const char *r = row(text, n);
	const char *end = strchr(r, '\n');
	char line[512];

	snprintf(line, sizeof(line), "%.*s", end ? (int)(end - r) : (int)strlen(r), r);
	if (!strstr(line, pct) || !strstr(line, samples) || !strstr(line, what))
		fail_msg("row %d \"%s\" lacks %s / %s / %s\nreport:\n%s", n, line, pct, samples,
			 what, text);
}

static void test_symbols_resolve_through_mmap2_and_kallsyms(void **state)
{
	char *text = report_text(*state, "sym", NULL, -1);

	assert_non_null(strstr(text, "46 samples"));
	expect_row(text, 0, "65.22%", "30", "[.] known_function_alpha");
	expect_row(text, 1, "21.74%", "10", "[.] known_function_beta");
	expect_row(text, 2, "10.87%", "5", "[k] kfunc_synthetic");
	/* an address without a symbol is named as perf names it */
	expect_row(text, 3, "2.17%", "1", "[.] 0x0000000000000010");
	free(text);
}

static void test_sort_keys_and_filters(void **state)
{
	char *text = report_text(*state, "comm,pid,dso,sym", "synthetic", -1);

	assert_non_null(strstr(text, "showing 41 samples of comm synthetic"));
	expect_row(text, 0, "73.17%", "30", "synthetic");
	expect_row(text, 0, "4242", "test_report", "known_function_alpha");
	expect_row(text, 2, "2.44%", "1", "[unknown]");
	free(text);

	text = report_text(*state, "cpu", NULL, 0);
	assert_non_null(strstr(text, "showing 5 samples of pid 0"));
	expect_row(text, 0, "100.00%", "5", "001");
	free(text);

	text = report_text(*state, "comm", NULL, -1);
	expect_row(text, 1, "10.87%", "5", "swapper");
	free(text);
}

/* Rows of equal weight come in the order of their keys (alpha's 15 samples
 * on CPU 0 and 15 on CPU 1), not in the order the table holds them, which
 * follows addresses ASLR moves from run to run. */
static void test_ties_in_key_order(void **state)
{
	char *text = report_text(*state, "sym,cpu", NULL, -1);

	expect_row(text, 0, "32.61%", "15", "known_function_alpha  000");
	expect_row(text, 1, "32.61%", "15", "known_function_alpha  001");
	free(text);
}

/* Binaries are looked for under --symfs: under an empty directory this
 * binary is not found (its frames show their DSO), under / it is. */
static void test_symfs(void **state)
{
	struct fixture *fx = *state;
	struct report_options o = { .input = fx->dir, .pid_filter = -1, .kallsyms = fx->kallsyms,
				    .symfs = fx->dir };
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(report_parse_sort(&o, "dso,sym", err, sizeof(err)), 0);
	assert_int_equal(report_run(&o, out, err, sizeof(err)), 0);
	fclose(out);
	/* each address its own row, by its offset in the file, as perf shows it */
	expect_row(text, 0, "65.22%", "30  test_report", "[.] 0x0000");
	expect_row(text, 1, "21.74%", "10  test_report", "[.] 0x0000");
	free(text);
	o.symfs = "/";
	out = open_memstream(&text, &len);
	assert_int_equal(report_run(&o, out, err, sizeof(err)), 0);
	fclose(out);
	expect_row(text, 0, "65.22%", "test_report", "[.] known_function_alpha");
	free(text);
}

static void test_bad_sort_key(void **state)
{
	struct report_options o = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(report_parse_sort(&o, "comm,size", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"size\""));
	/* an empty key between commas, or at either end, is a mistake */
	assert_int_equal(report_parse_sort(&o, "comm,,pid", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty sort key in \"comm,,pid\""));
	assert_int_equal(report_parse_sort(&o, ",comm", err, sizeof(err)), -EINVAL);
	assert_int_equal(report_parse_sort(&o, "comm,", err, sizeof(err)), -EINVAL);
	assert_int_equal(report_parse_sort(&o, "comm,pid", err, sizeof(err)), 0);
}

static void test_missing_input_is_an_error(void **state)
{
	struct report_options o = { .input = "/nonexistent/ringtrace.data", .pid_filter = -1 };
	char err[512];

	(void)state;
	report_parse_sort(&o, "sym", err, sizeof(err));
	assert_int_equal(report_run(&o, stdout, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/ringtrace.data"));
}

/* perf 6.1 reads the synthetic directory and names the same symbols. */
static void test_perf_reads_the_directory(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL;
	int rc = tu_sh(&out, "perf script -i %s -F comm,pid,cpu,ip,sym 2>&1", fx->dir);

	if (rc == 127) {
		free(out);
		tu_skip("perf is not installed (linux-perf; make deps installs it)");
	}
	assert_int_equal(rc, 0);
	if (!strstr(out, "synthetic") || !strstr(out, "known_function_alpha") ||
	    !strstr(out, "known_function_beta"))
		fail_msg("perf script output lacks the synthetic samples:\n%s", out);
	free(out);
	rc = tu_sh(&out, "perf report -i %s --stdio --sort sym 2>&1", fx->dir);
	assert_int_equal(rc, 0);
	if (!strstr(out, "known_function_alpha") || !strstr(out, "65.22%") ||
	    !strstr(out, "[.] 0x0000000000000010"))
		fail_msg("perf report output lacks known_function_alpha at 65.22%% or the "
			 "unmapped address:\n%s", out);
	free(out);
}

/* Rows of one weight at addresses without a symbol come in perf's order:
 * by the sign of the addresses' difference (perf's _sort__addr_cmp), a
 * kernel address before user ones; perf report's own rows, where perf is
 * installed. */
static void test_address_ties_as_perf(void **state)
{
	static const struct {
		uint16_t misc;
		uint64_t ip;
	} samples[] = { { PERF_RECORD_MISC_USER, 0x7fff00001000ULL },
			{ PERF_RECORD_MISC_KERNEL, 0xffff888000001000ULL },
			{ PERF_RECORD_MISC_USER, 0x10 } };
	struct perf_comm comm = { .pid = SYNTHETIC_PID, .tid = SYNTHETIC_PID, .comm = "synthetic" };
	struct fixture fx = { .dir = tu_tempdir() };
	struct perf_event_attr *attr;
	struct tu_recording r;
	char *text, *out = NULL;
	int rc;

	(void)state;
	tu_recording_init(&r, 1);
	attr = tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				  SAMPLE_TYPE, 0);
	attr->sample_period = 1000000;
	attr->exclude_guest = 1;
	assert_int_equal(perf_kernel_mmap_encode(&r.side, SAMPLE_ID_TYPE, KERNEL_TEXT, NULL), 0);
	assert_int_equal(perf_comm_encode(&r.side, SAMPLE_ID_TYPE, &comm, NULL), 0);
	for (unsigned int i = 0; i < 3; i++)
		add_sample(&r, samples[i].misc, samples[i].ip, SYNTHETIC_PID, 1000 + i, 0);
	r.kallsyms = "ffffffff81000000 T _text\nffffffff81000100 T kfunc_synthetic\n";
	tu_recording_write(&r, fx.dir);
	snprintf(fx.kallsyms, sizeof(fx.kallsyms), "%s/kallsyms", fx.dir);
	tu_recording_free(&r);
	text = report_text(&fx, "sym", NULL, -1);
	expect_row(text, 0, "33.33%", "1", "[k] 0xffff888000001000");
	expect_row(text, 1, "33.33%", "1", "[.] 0x0000000000000010");
	expect_row(text, 2, "33.33%", "1", "[.] 0x00007fff00001000");
	free(text);
	rc = tu_sh(&out, "perf report -i %s --stdio --sort sym 2>/dev/null | "
			 "awk '!/^#/ && NF { print $NF }' | paste -sd ' '", fx.dir);
	if (rc != 127) {
		assert_int_equal(rc, 0);
		if (strcmp(out, "0xffff888000001000 0x0000000000000010 0x00007fff00001000\n"))
			fail_msg("perf report orders the addresses otherwise: %s", out);
	}
	free(out);
	tu_rmtree(fx.dir);
	free(fx.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols_resolve_through_mmap2_and_kallsyms),
		cmocka_unit_test(test_sort_keys_and_filters),
		cmocka_unit_test(test_ties_in_key_order),
		cmocka_unit_test(test_symfs),
		cmocka_unit_test(test_bad_sort_key),
		cmocka_unit_test(test_missing_input_is_an_error),
		cmocka_unit_test(test_perf_reads_the_directory),
		cmocka_unit_test(test_address_ties_as_perf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
