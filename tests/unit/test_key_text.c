/* SPDX-License-Identifier: GPL-2.0-only */
/* test_key_text.c: table keys written without printf read as printf's
 * "%" PRIx64 and "%s" would write them, and are cut at the buffer's end,
 * never past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/key_text.h"

static void test_as_printf(void **state)
{
	uint64_t values[] = { 0, 1, 15, 16, 0xdeadbeef, 0x7fffffffffffULL, UINT64_MAX };
	char key[128], want[128];
	struct key_text k;

	(void)state;
	srandom(1);
	for (int i = 0; i < 10000; i++) {
		uint64_t a = i < 7 ? values[i] : (uint64_t)random() << 33 ^ (uint64_t)random(),
			 b = (uint64_t)random() >> (i % 31);

		key_text_init(&k, key, sizeof(key));
		key_text_hex(&k, a);
		key_text_char(&k, '-');
		key_text_hex(&k, b);
		key_text_char(&k, ' ');
		key_text_str(&k, "libc.so.6");
		snprintf(want, sizeof(want), "%" PRIx64 "-%" PRIx64 " %s", a, b, "libc.so.6");
		assert_string_equal(key, want);
		assert_ptr_equal(k.at, key + strlen(want));
	}
}

static void test_cut_at_the_end(void **state)
{
	char buf[12];
	struct key_text k;

	(void)state;
	memset(buf, 'x', sizeof(buf));
	key_text_init(&k, buf, 8);
	key_text_str(&k, "abcd");
	key_text_hex(&k, 0x123456);
	key_text_char(&k, ',');
	key_text_str(&k, "more");
	assert_string_equal(buf, "abcd123");
	assert_int_equal(buf[8], 'x');
	key_text_init(&k, buf, 1);
	key_text_hex(&k, UINT64_MAX);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_printf),
		cmocka_unit_test(test_cut_at_the_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
