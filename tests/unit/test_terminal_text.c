/* SPDX-License-Identifier: GPL-2.0-only */
/* test_terminal_text.c: names with control bytes come out as C escapes, plain
 * ones as they are (the same pointer), and a small buffer cuts at an escape's
 * end, never inside one; made valid UTF-8 too (terminal_text_utf8), invalid
 * bytes become U+FFFD and NULs escapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lib/terminal_text.h"

static void test_plain_is_kept(void **state)
{
	const char *s = "sh [k] ümlaut\\n (a backslash stays)";
	char buf[64];

	(void)state;
	assert_true(terminal_text_plain(s));
	assert_ptr_equal(terminal_text(s, buf, sizeof(buf)), s);
}

static void test_control_bytes_escaped(void **state)
{
	char buf[64];

	(void)state;
	assert_false(terminal_text_plain("a\nb"));
	assert_string_equal(terminal_text("ev\x1b[31mil\nx", buf, sizeof(buf)), "ev\\x1b[31mil\\nx");
	assert_string_equal(terminal_text("\t\r\x7f\x01", buf, sizeof(buf)), "\\t\\r\\x7f\\x01");
}

static void test_cut_at_an_escape_end(void **state)
{
	char buf[8];

	(void)state;
	/* "ab\x1b" is 6 bytes, "\n" would make 8 with its NUL: cut before it */
	assert_string_equal(terminal_text("ab\x1b\ncd", buf, sizeof(buf)), "ab\\x1b");
	assert_string_equal(terminal_text("\x1b", buf, 2), "");
}

static void test_utf8(void **state)
{
	static const char in[] = "ok\x1b[1m\0caf\xc3\xa9\xff\xc3\n\x7f";
	struct byte_buffer b = { 0 };

	(void)state;
	assert_true(terminal_text_utf8_plain("caf\xc3\xa9 [k]", 9));
	assert_false(terminal_text_utf8_plain("a\x1b", 2));
	assert_false(terminal_text_utf8_plain("a\0", 2));
	assert_false(terminal_text_utf8_plain("caf\xc3", 4));
	assert_true(terminal_text_utf8(&b, in, sizeof(in) - 1));
	assert_non_null(byte_buffer_append(&b, "", 1));
	/* \xc3 then \n: a sequence cut short, then an escape */
	assert_string_equal((char *)b.data,
			    "ok\\x1b[1m\\x00caf\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\\n\\x7f");
	byte_buffer_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_is_kept),
		cmocka_unit_test(test_control_bytes_escaped),
		cmocka_unit_test(test_cut_at_an_escape_end),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
