/* SPDX-License-Identifier: GPL-2.0-only */
/* test_switch_output.c: --switch-output and --max-size values read as perf
 * reads them, and outputs named with perf's timestamp suffix. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/switch_output.h"

static void test_modes_as_perf(void **state)
{
	struct switch_output_spec s;
	char err[256];

	(void)state;
	assert_int_equal(switch_output_parse(NULL, &s, err, sizeof(err)), 0);
	assert_int_equal(s.mode, SWITCH_OUTPUT_SIGNAL);
	assert_int_equal(switch_output_parse("signal", &s, err, sizeof(err)), 0);
	assert_int_equal(s.mode, SWITCH_OUTPUT_SIGNAL);
	assert_int_equal(switch_output_parse("1M", &s, err, sizeof(err)), 0);
	assert_int_equal(s.mode, SWITCH_OUTPUT_SIZE);
	assert_int_equal(s.bytes, 1 << 20);
	assert_int_equal(switch_output_parse("100K", &s, err, sizeof(err)), 0);
	assert_int_equal(s.bytes, 100 << 10);
	assert_int_equal(switch_output_parse("1G", &s, err, sizeof(err)), 0);
	assert_int_equal(s.bytes, 1ULL << 30);
	/* perf: upper case sizes, lower case times */
	assert_int_equal(switch_output_parse("5m", &s, err, sizeof(err)), 0);
	assert_int_equal(s.mode, SWITCH_OUTPUT_TIME);
	assert_int_equal(s.ns, 300ULL * 1000000000ULL);
	assert_int_equal(switch_output_parse("30s", &s, err, sizeof(err)), 0);
	assert_int_equal(s.ns, 30ULL * 1000000000ULL);
	assert_int_equal(switch_output_parse("1h", &s, err, sizeof(err)), 0);
	assert_int_equal(s.ns, 3600ULL * 1000000000ULL);
	assert_int_equal(switch_output_parse("2d", &s, err, sizeof(err)), 0);
	assert_int_equal(s.ns, 2 * 86400ULL * 1000000000ULL);
}

static void test_bad_values_name_the_fix(void **state)
{
	static const char *const bad[] = { "", "10", "1X", "M", "1MB", "0s", "100B", "-1M",
					   "1.5M", "99999999999999999999G", "signals" };
	struct switch_output_spec s;
	uint64_t v;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(switch_output_parse(bad[i], &s, err, sizeof(err)), -22);
		assert_non_null(strstr(err, "--switch-output"));
		assert_non_null(strstr(err, "give"));
	}
	assert_int_equal(switch_output_parse_size("--max-size", "100M", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 100ULL << 20);
	assert_int_equal(switch_output_parse_size("--max-size", "1T", &v, err, sizeof(err)), -22);
	assert_non_null(strstr(err, "--max-size"));
	assert_int_equal(switch_output_parse_size("--max-size", "5m", &v, err, sizeof(err)), -22);
}

static void test_name_is_perfs(void **state)
{
	struct timespec t = { 0, 467000000 };
	struct tm tm = { .tm_year = 2026 - 1900, .tm_mon = 10, .tm_mday = 27, .tm_hour = 12,
			 .tm_min = 34, .tm_sec = 56, .tm_isdst = -1 };
	char name[64];

	(void)state;
	t.tv_sec = mktime(&tm);
	assert_int_equal(switch_output_name(name, sizeof(name), "perf.data", &t), 0);
	assert_string_equal(name, "perf.data.2026112712345646");
	t.tv_nsec = 999999999;
	assert_int_equal(switch_output_name(name, sizeof(name), "d", &t), 0);
	assert_string_equal(name, "d.2026112712345699");
	assert_int_equal(switch_output_name(name, 10, "perf.data", &t), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_as_perf),
		cmocka_unit_test(test_bad_values_name_the_fix),
		cmocka_unit_test(test_name_is_perfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
