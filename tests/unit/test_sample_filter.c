/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sample_filter.c: script's sample filters (--comm, --pid, --tid,
 * --cpu, --time) parse perf's syntax, refuse bad values with one line, and
 * keep exactly the samples every filter passes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "report/sample_filter.h"

static struct perf_sample sample(uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t time)
{
	return (struct perf_sample){ .pid = pid, .tid = tid, .cpu = cpu, .time = time };
}

static void test_every_filter_must_pass(void **state)
{
	const struct sample_filter_options o = { .comms = "bash,sshd", .pids = "10,20",
						 .tids = "11,20", .cpus = "0,2-3",
						 .time = "1.5,2.000000001" };
	struct sample_filter f;
	struct perf_sample s;
	char err[256];

	(void)state;
	assert_int_equal(sample_filter_init(&f, &o, 64, err, sizeof(err)), 0);
	s = sample(10, 11, 2, 1500000000);
	assert_true(sample_filter_keeps(&f, &s, "bash"));
	assert_true(sample_filter_keeps(&f, &s, "sshd"));
	assert_false(sample_filter_keeps(&f, &s, "bas"));
	s = sample(20, 20, 3, 2000000001); /* both ends kept */
	assert_true(sample_filter_keeps(&f, &s, "sshd"));
	s = sample(30, 11, 0, 1600000000);
	assert_false(sample_filter_keeps(&f, &s, "bash"));
	s = sample(10, 12, 0, 1600000000);
	assert_false(sample_filter_keeps(&f, &s, "bash"));
	s = sample(10, 11, 1, 1600000000);
	assert_false(sample_filter_keeps(&f, &s, "bash"));
	s = sample(10, 11, 0, 1499999999);
	assert_false(sample_filter_keeps(&f, &s, "bash"));
	s = sample(10, 11, 0, 2000000002);
	assert_false(sample_filter_keeps(&f, &s, "bash"));
	sample_filter_free(&f);
}

static void test_none_keeps_all(void **state)
{
	const struct sample_filter_options o = { 0 };
	struct perf_sample s = sample(1, 1, 7, 0);
	struct sample_filter f;
	char err[256];

	(void)state;
	assert_int_equal(sample_filter_init(&f, &o, 64, err, sizeof(err)), 0);
	assert_true(sample_filter_keeps(&f, &s, "anything"));
	sample_filter_free(&f);
}

/* Open ends: ",END" from the start, "START," to the end. */
static void test_time_open_ends(void **state)
{
	uint64_t start, end;
	char err[256];

	(void)state;
	assert_int_equal(sample_filter_parse_time(",3", &start, &end, err, sizeof(err)), 0);
	assert_int_equal(start, 0);
	assert_int_equal(end, 3000000000ull);
	assert_int_equal(sample_filter_parse_time("12345.678901,", &start, &end, err, sizeof(err)), 0);
	assert_int_equal(start, 12345678901000ull);
	assert_int_equal(end, UINT64_MAX);
}

static void test_bad_values_refused(void **state)
{
	static const struct sample_filter_options bad[] = {
		{ .pids = "" },      { .pids = "1,,2" }, { .pids = "-1" }, { .pids = "1x" },
		{ .tids = "4294967296" }, { .comms = "" }, { .comms = "a,,b" }, { .cpus = "64" },
		{ .time = "5" },     { .time = "2,1" },  { .time = "a,b" },
	};
	struct sample_filter f;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(sample_filter_init(&f, &bad[i], 64, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "\""));
		assert_null(strchr(err, '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_filter_must_pass),
		cmocka_unit_test(test_none_keeps_all),
		cmocka_unit_test(test_time_open_ends),
		cmocka_unit_test(test_bad_values_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
