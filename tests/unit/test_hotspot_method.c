/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hotspot_method.c: a HotSpot line number table, compressed as the JVM
 * writes it (a byte per small step, 0xff and two signed UNSIGNED5 numbers
 * otherwise, 0 at its end), gives each bytecode index the line of the last
 * entry at or before it; a table cut before its end, or with no entry that
 * early, gives none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "symbols/hotspot_method.h"

/* (bci 0, line 10) by 0xff (10 needs more than 3 bits), (5, 11) by one
 * byte, (300, 5) by 0xff: 295 zigzagged is 590, two UNSIGNED5 bytes (206,
 * 6), -6 is 11; then the end. */
static const uint8_t table[] = { 0xff, 0, 20, (5 << 3) | 1, 0xff, 206, 6, 11, 0 };

static uint32_t line_of(const uint8_t *t, size_t len, uint32_t bci, int *r)
{
	uint32_t line = 0;

	*r = hotspot_line_of_bci(t, len, bci, &line);
	return line;
}

static void test_lines_of_bcis(void **state)
{
	int r;

	(void)state;
	assert_int_equal(line_of(table, sizeof(table), 0, &r), 10);
	assert_int_equal(r, 0);
	assert_int_equal(line_of(table, sizeof(table), 3, &r), 10);
	assert_int_equal(line_of(table, sizeof(table), 5, &r), 11);
	assert_int_equal(line_of(table, sizeof(table), 299, &r), 11);
	assert_int_equal(line_of(table, sizeof(table), 300, &r), 5);
	assert_int_equal(line_of(table, sizeof(table), 65535, &r), 5);
	assert_int_equal(r, 0);
}

static void test_cut_or_empty(void **state)
{
	static const uint8_t empty[] = { 0 }, late[] = { (5 << 3) | 1, 0 };
	int r;

	(void)state;
	/* cut anywhere before its end mark: no line, never a read past it */
	for (size_t len = 0; len < sizeof(table); len++) {
		line_of(table, len, 1000, &r);
		assert_int_equal(r, -EINVAL);
	}
	line_of(empty, sizeof(empty), 0, &r);
	assert_int_equal(r, -ENOENT);
	line_of(late, sizeof(late), 2, &r);
	assert_int_equal(r, -ENOENT);
	assert_int_equal(line_of(late, sizeof(late), 7, &r), 1);
	assert_int_equal(r, 0);
}

/* The table's runs of bytecode indexes by line: [0, 5) 10, [5, 300) 11,
 * [300, end) 5; each index's line as hotspot_line_of_bci gives it; an entry
 * whose index comes back (a loop's condition after its body) splits a run;
 * a cut table none; no room, -E2BIG. */
static void test_line_ranges(void **state)
{
	/* (0, 3), (8, 4), then (2, 5): bcis 2 to 7 have line 5, as HotSpot
	 * reads it (the entry of the largest bci at or before, its own if exact) */
	static const uint8_t loop[] = { (0 << 3) | 3, (8 << 3) | 1, 0xff, 11, 2, 0 };
	struct hotspot_line_range r[16];
	int n;

	(void)state;
	n = hotspot_line_ranges(table, sizeof(table), 4095, r, 16);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].start, 0);
	assert_int_equal(r[0].end, 5);
	assert_int_equal(r[0].line, 10);
	assert_int_equal(r[1].start, 5);
	assert_int_equal(r[1].end, 300);
	assert_int_equal(r[1].line, 11);
	assert_int_equal(r[2].start, 300);
	assert_int_equal(r[2].end, 4095);
	assert_int_equal(r[2].line, 5);
	n = hotspot_line_ranges(loop, sizeof(loop), 100, r, 16);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		for (uint32_t bci = r[i].start; bci < r[i].end; bci++) {
			int rc;

			assert_int_equal(line_of(loop, sizeof(loop), bci, &rc), r[i].line);
		}
	assert_int_equal(r[n - 1].end, 100);
	assert_int_equal(hotspot_line_ranges(table, sizeof(table) - 1, 4095, r, 16), -EINVAL);
	assert_int_equal(hotspot_line_ranges(table, sizeof(table), 4095, r, 2), -E2BIG);
}

/* A method's name from the symbols a walk read: the class's '/'s as '.',
 * control characters and invalid UTF-8 as '?', a cut one ending "...",
 * never past its room. */
static void test_name_format(void **state)
{
	static const char bad[] = { 'a', 0x01, (char)0xff, 'b' };
	char buf[64], klass[200];

	(void)state;
	hotspot_method_format("java/lang/String", 16, "valueOf", 7, false, buf, sizeof(buf));
	assert_string_equal(buf, "java.lang.String.valueOf");
	hotspot_method_format("p/\xc3\xa9t\xc3\xa9", 7, "run", 3, false, buf, sizeof(buf));
	assert_string_equal(buf, "p.\xc3\xa9t\xc3\xa9.run");
	hotspot_method_format(bad, sizeof(bad), "m", 1, false, buf, sizeof(buf));
	assert_string_equal(buf, "a??b.m");
	hotspot_method_format("C", 1, "m", 1, true, buf, sizeof(buf));
	assert_string_equal(buf, "C.m...");
	memset(klass, 'k', sizeof(klass));
	hotspot_method_format(klass, sizeof(klass), "m", 1, false, buf, sizeof(buf));
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	assert_string_equal(buf + strlen(buf) - 3, "...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_of_bcis),
		cmocka_unit_test(test_cut_or_empty),
		cmocka_unit_test(test_name_format),
		cmocka_unit_test(test_line_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
