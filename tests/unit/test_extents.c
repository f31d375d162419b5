/* SPDX-License-Identifier: GPL-2.0-only */
/* test_extents.c: the free extents the unwind rows map is allocated from:
 * allocations never overlap, frees coalesce (the whole range is one extent
 * again once everything is freed), bad frees are refused, and a random run
 * agrees slot for slot with a bitmap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/extents.h"

static void test_first_fit_and_coalescing(void **state)
{
	struct extents e;

	(void)state;
	assert_int_equal(extents_init(&e, 100), 0);
	assert_int_equal(extents_alloc(&e, 30), 0);
	assert_int_equal(extents_alloc(&e, 30), 30);
	assert_int_equal(extents_alloc(&e, 30), 60);
	assert_int_equal(extents_alloc(&e, 30), -1); /* 10 left */
	assert_int_equal(extents_largest(&e), 10);
	assert_int_equal(extents_free(&e, 0, 30), 0);
	assert_int_equal(extents_free(&e, 60, 30), 0); /* joins the 10 at the end */
	assert_int_equal(e.nr, 2);
	assert_int_equal(extents_largest(&e), 40);
	/* first fit: the hole at 0 before the larger one at 60 */
	assert_int_equal(extents_alloc(&e, 20), 0);
	assert_int_equal(extents_alloc(&e, 35), 60);
	assert_int_equal(extents_free(&e, 0, 20), 0);
	assert_int_equal(extents_free(&e, 60, 35), 0);
	assert_int_equal(extents_free(&e, 30, 30), 0); /* joins both sides */
	assert_int_equal(e.nr, 1);
	assert_int_equal(e.free[0].start, 0);
	assert_int_equal(e.free[0].len, 100);
	assert_int_equal(e.free_slots, 100);
	assert_int_equal(extents_alloc(&e, 0), -1);
	extents_release(&e);
}

static void test_bad_frees_refused(void **state)
{
	struct extents e;

	(void)state;
	assert_int_equal(extents_init(&e, 64), 0);
	assert_int_equal(extents_alloc(&e, 32), 0);
	assert_int_equal(extents_free(&e, 16, 32), -EINVAL); /* half of it free already */
	assert_int_equal(extents_free(&e, 40, 8), -EINVAL);  /* free already */
	assert_int_equal(extents_free(&e, 60, 8), -EINVAL);  /* past the end */
	assert_int_equal(extents_free(&e, 0, 32), 0);
	assert_int_equal(extents_free(&e, 0, 1), -EINVAL); /* twice */
	assert_int_equal(e.free_slots, 64);
	extents_release(&e);
}

#define SIZE 4096
#define LIVE 64

static void check_against(const struct extents *e, const bool *used)
{
	uint64_t free_slots = 0, unused = 0;

	for (size_t i = 0; i < e->nr; i++) {
		assert_true(e->free[i].len > 0);
		if (i)
			assert_true((uint64_t)e->free[i - 1].start + e->free[i - 1].len <
				    e->free[i].start);
		for (uint32_t s = e->free[i].start; s < e->free[i].start + e->free[i].len; s++)
			assert_false(used[s]);
		free_slots += e->free[i].len;
	}
	assert_int_equal(free_slots, e->free_slots);
	for (uint32_t s = 0; s < SIZE; s++)
		unused += !used[s];
	assert_int_equal(unused, free_slots);
}

static void test_random_run_agrees_with_a_bitmap(void **state)
{
	struct { uint32_t start, len; } live[LIVE] = { { 0, 0 } };
	static bool used[SIZE];
	struct extents e;

	(void)state;
	srand(7);
	memset(used, 0, sizeof(used));
	assert_int_equal(extents_init(&e, SIZE), 0);
	for (int step = 0; step < 20000; step++) {
		int i = rand() % LIVE;

		if (live[i].len) {
			assert_int_equal(extents_free(&e, live[i].start, live[i].len), 0);
			memset(&used[live[i].start], 0, live[i].len);
			live[i].len = 0;
		} else {
			uint32_t len = 1 + (uint32_t)rand() % 200;
			int64_t at = extents_alloc(&e, len);

			if (at < 0) {
				assert_true(extents_largest(&e) < len);
				continue;
			}
			for (uint32_t s = 0; s < len; s++)
				assert_false(used[at + s]);
			memset(&used[at], 1, len);
			live[i].start = (uint32_t)at;
			live[i].len = len;
		}
		if (step % 97 == 0)
			check_against(&e, used);
	}
	for (int i = 0; i < LIVE; i++)
		if (live[i].len)
			assert_int_equal(extents_free(&e, live[i].start, live[i].len), 0);
	assert_int_equal(e.nr, 1);
	assert_int_equal(e.free_slots, SIZE);
	extents_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_fit_and_coalescing),
		cmocka_unit_test(test_bad_frees_refused),
		cmocka_unit_test(test_random_run_agrees_with_a_bitmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
