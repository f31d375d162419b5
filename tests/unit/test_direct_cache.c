/* SPDX-License-Identifier: GPL-2.0-only */
/* test_direct_cache.c: a direct-mapped cache's slots start few, double as
 * misses fill them up to the cap and no further, and keep across a doubling
 * every entry its keep function keeps, each where a lookup finds it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lib/direct_cache.h"

struct entry {
	uint64_t key;
	uint32_t generation; /* 0: empty */
	uint32_t value;
};

static uint64_t hash_key(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ULL;
}

static bool keep_entry(const void *slot, const void *ctx, uint64_t *hash)
{
	const struct entry *e = slot;

	*hash = hash_key(e->key);
	return e->generation == *(const uint32_t *)ctx;
}

/* The value cached for key, or 0 on a miss (then filled in with key + 1). */
static uint32_t lookup(struct direct_cache *c, uint64_t key, uint32_t generation)
{
	uint64_t h = hash_key(key);
	struct entry *e = direct_cache_slot(c, h);

	if (e && e->generation == generation && e->key == key)
		return e->value;
	e = direct_cache_fill(c, h, &generation);
	assert_non_null(e);
	*e = (struct entry){ key, generation, (uint32_t)key + 1 };
	return 0;
}

static void test_grows_to_the_cap(void **state)
{
	struct direct_cache c;
	uint32_t generation = 1;

	(void)state;
	direct_cache_init(&c, sizeof(struct entry), 10, keep_entry);
	assert_null(direct_cache_slot(&c, hash_key(1)));
	assert_int_equal(lookup(&c, 1, generation), 0);
	assert_int_equal(c.bits, DIRECT_CACHE_FIRST_BITS);
	assert_int_equal(lookup(&c, 1, generation), 2);
	/* a few keys, hit again and again: the first slots do */
	for (int round = 0; round < 100; round++)
		for (uint64_t k = 1; k <= 8; k++)
			lookup(&c, k, generation);
	assert_int_equal(c.bits, DIRECT_CACHE_FIRST_BITS);
	/* many: doubled up to the cap, never past it */
	for (int round = 0; round < 20; round++)
		for (uint64_t k = 0; k < 5000; k++)
			lookup(&c, k, generation);
	assert_int_equal(c.bits, 10);
	direct_cache_free(&c);
	assert_null(c.slots);
}

/* A doubling keeps every entry of the current generation, each where its
 * hash leads (but one the new entry took the slot of); a stale one is
 * dropped. */
static void test_doubling_keeps_entries(void **state)
{
	static struct entry before[1u << DIRECT_CACHE_FIRST_BITS];
	struct direct_cache c;
	uint32_t generation = 1;
	unsigned int kept = 0;
	uint64_t k;

	(void)state;
	direct_cache_init(&c, sizeof(struct entry), 12, keep_entry);
	lookup(&c, 1000, generation);
	generation = 2; /* 1000's entry is stale now */
	for (k = 1; c.bits == DIRECT_CACHE_FIRST_BITS; k++) {
		memcpy(before, c.slots, sizeof(before));
		lookup(&c, k, generation);
	}
	assert_int_equal(c.bits, DIRECT_CACHE_FIRST_BITS + 1);
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		const struct entry *e = direct_cache_slot(&c, hash_key(before[i].key));

		if (before[i].generation == 1) /* the stale one */
			assert_false(e->key == 1000 && e->generation);
		if (before[i].generation != generation)
			continue;
		if (e->key == k - 1) /* the entry just filled in took its slot */
			continue;
		assert_int_equal(e->key, before[i].key);
		assert_int_equal(e->value, before[i].key + 1);
		kept++;
	}
	assert_true(kept > 20);
	direct_cache_free(&c);
}

/* A cap below the first slots is the size it starts with. */
static void test_small_cap(void **state)
{
	struct direct_cache c;

	(void)state;
	direct_cache_init(&c, sizeof(struct entry), 2, keep_entry);
	for (uint64_t k = 0; k < 100; k++)
		lookup(&c, k, 1);
	assert_int_equal(c.bits, 2);
	direct_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_to_the_cap),
		cmocka_unit_test(test_doubling_keeps_entries),
		cmocka_unit_test(test_small_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
