/* SPDX-License-Identifier: GPL-2.0-only */
/* test_hash_map.c: the hash map against a plain array through random puts
 * and removes (removal shifts the entries after it back: nothing is lost). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
