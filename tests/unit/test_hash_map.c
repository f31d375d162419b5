/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hash_map.c: the hash map against a plain array through random puts
 * and removes (removal shifts the entries after it back: nothing is lost),
 * and get-or-add of values keyed by their own u32. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "lib/hash_map.h"

#define KEYS 512

static void test_put_get_remove(void **state)
{
	static uint64_t keys[KEYS];
	static bool present[KEYS];
	struct hash_map m;
	unsigned int seed = 42;
	size_t len = 0;

	(void)state;
	hash_map_init(&m, hash_u64_key, equal_u64_key);
	for (int i = 0; i < KEYS; i++)
		keys[i] = (uint64_t)i * 0x9e3779b97f4a7c15ULL; /* clustered by the table's mask */
	for (int step = 0; step < 200000; step++) {
		int k = rand_r(&seed) % KEYS;

		if (rand_r(&seed) % 2) {
			assert_int_equal(hash_map_put(&m, &keys[k], &keys[k]), 0);
			len += !present[k];
			present[k] = true;
		} else {
			void *v = hash_map_remove(&m, &keys[k]);

			assert_ptr_equal(v, present[k] ? &keys[k] : NULL);
			len -= present[k];
			present[k] = false;
		}
		if (step % 1000 == 0)
			for (int j = 0; j < KEYS; j++)
				assert_ptr_equal(hash_map_get(&m, &keys[j]), present[j] ? &keys[j] : NULL);
		assert_int_equal(m.len, len);
	}
	hash_map_free(&m);
	assert_null(hash_map_remove(&m, &keys[0]));
}

struct keyed {
	uint64_t other;
	uint32_t id; /* the key, inside the value */
	uint32_t more;
};

/* get-or-add: the first call adds a zeroed value keyed by its own field,
 * later calls find it; other keys get their own. */
static void test_get_or_add_u32(void **state)
{
	struct hash_map m;
	struct keyed *a, *b, *again;
	bool added;

	(void)state;
	hash_map_init(&m, hash_u32_key, equal_u32_key);
	a = hash_map_get_or_add_u32(&m, 7, sizeof(*a), offsetof(struct keyed, id), &added);
	assert_non_null(a);
	assert_true(added);
	assert_int_equal(a->id, 7);
	assert_int_equal(a->other + a->more, 0);
	a->more = 99;
	again = hash_map_get_or_add_u32(&m, 7, sizeof(*a), offsetof(struct keyed, id), &added);
	assert_ptr_equal(again, a);
	assert_false(added);
	assert_int_equal(again->more, 99);
	b = hash_map_get_or_add_u32(&m, 8, sizeof(*b), offsetof(struct keyed, id), NULL);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(b->id, 8);
	assert_int_equal(m.len, 2);
	assert_ptr_equal(hash_map_get(&m, &(uint32_t){ 8 }), b);
	/* every value freed with the map (LSan, in the sanitized run, finds
	 * any left), and the map empty and usable after */
	for (uint32_t k = 100; k < 1100; k++)
		assert_non_null(hash_map_get_or_add_u32(&m, k, sizeof(*a), offsetof(struct keyed, id),
							NULL));
	hash_map_free_all(&m);
	assert_int_equal(m.len, 0);
	assert_null(hash_map_get(&m, &(uint32_t){ 8 }));
	a = hash_map_get_or_add_u32(&m, 9, sizeof(*a), offsetof(struct keyed, id), &added);
	assert_non_null(a);
	assert_true(added);
	hash_map_free_all(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_remove),
		cmocka_unit_test(test_get_or_add_u32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
