/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sorted_count.c: the binary search under the lookups by address
 * (maps, symbols, unwind rows, units): how many keys are at or below a
 * value, at the edges, with equal keys, and with the key inside a struct,
 * checked against a linear count over every value in range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/sorted_count.h"

struct range {
	uint32_t pad;
	uint64_t start, end;
};

static size_t linear_count(const uint64_t *keys, size_t n, uint64_t x)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += keys[i] <= x;
	return c;
}

static void test_counts_as_linear_search(void **state)
{
	const uint64_t keys[] = { 3, 5, 5, 5, 9, 20, 20, UINT64_MAX - 1 };
	const size_t nr = sizeof(keys) / sizeof(keys[0]);

	(void)state;
	for (size_t n = 0; n <= nr; n++)
		for (uint64_t x = 0; x < 24; x++)
			assert_int_equal(sorted_count_at_or_below(keys, n, sizeof(*keys), 0, x),
					 linear_count(keys, n, x));
	assert_int_equal(sorted_count_at_or_below(keys, nr, sizeof(*keys), 0, UINT64_MAX - 2),
			 nr - 1);
	assert_int_equal(sorted_count_at_or_below(keys, nr, sizeof(*keys), 0, UINT64_MAX), nr);
}

/* How many of the n ranges at r start at or below x. */
static size_t starts_at_or_below(const struct range *r, size_t n, uint64_t x)
{
	return sorted_count_at_or_below(r, n, sizeof(*r), offsetof(struct range, start), x);
}

static void test_key_inside_a_struct(void **state)
{
	const struct range r[] = { { 7, 0x1000, 0x2000 }, { 7, 0x2000, 0x2100 },
				   { 7, 0x8000, 0x9000 } };

	(void)state;
	assert_int_equal(starts_at_or_below(r, 3, 0xfff), 0);
	assert_int_equal(starts_at_or_below(r, 3, 0x1000), 1);
	assert_int_equal(starts_at_or_below(r, 3, 0x20ff), 2);
	assert_int_equal(starts_at_or_below(r, 3, 0x7fff), 2);
	assert_int_equal(starts_at_or_below(r, 3, 0x8000), 3);
	assert_int_equal(starts_at_or_below(NULL, 0, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_as_linear_search),
		cmocka_unit_test(test_key_inside_a_struct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
