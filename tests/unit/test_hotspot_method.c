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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
