/* SPDX-License-Identifier: GPL-2.0-only */
/* hash_map.c: an open-addressing hash map from caller-owned keys to values,
 * with the caller's hash and equality; used for processes, DSOs and report rows. */
#include "lib/hash_map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void hash_map_init(struct hash_map *m, hash_map_hash_fn hash, hash_map_equal_fn equal)
{
	memset(m, 0, sizeof(*m));
	m->hash = hash;
	m->equal = equal;
}

static struct hash_map_slot *find_slot(const struct hash_map *m, const void *key, uint64_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct hash_map_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && m->equal(s->key, key)))
			return s;
	}
}

void *hash_map_get(const struct hash_map *m, const void *key)
{
	struct hash_map_slot *s;

	if (!m->cap)
		return NULL;
	s = find_slot(m, key, m->hash(key));
	return s->key ? s->value : NULL;
}

static int grow(struct hash_map *m)
{
	struct hash_map old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find_slot(m, old.slots[i].key, old.slots[i].hash) = old.slots[i];
	free(old.slots);
	return 0;
}

int hash_map_put(struct hash_map *m, const void *key, void *value)
{
	uint64_t h = m->hash(key);
	struct hash_map_slot *s;

	if ((m->len + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	s = find_slot(m, key, h);
	if (!s->key)
		m->len++;
	*s = (struct hash_map_slot){ h, key, value };
	return 0;
}

void *hash_map_get_or_add_u32(struct hash_map *m, uint32_t key, size_t value_size,
			      size_t key_offset, bool *added)
{
	void *value = hash_map_get(m, &key);
	uint8_t *fresh;

	if (added)
		*added = false;
	if (value)
		return value;
	fresh = calloc(1, value_size);
	if (!fresh)
		return NULL;
	memcpy(fresh + key_offset, &key, sizeof(key));
	if (hash_map_put(m, fresh + key_offset, fresh)) {
		free(fresh);
		return NULL;
	}
	if (added)
		*added = true;
	return fresh;
}

void *hash_map_remove(struct hash_map *m, const void *key)
{
	struct hash_map_slot *s;
	size_t mask = m->cap - 1, hole, j;
	void *value;

	if (!m->cap)
		return NULL;
	s = find_slot(m, key, m->hash(key));
	if (!s->key)
		return NULL;
	value = s->value;
	hole = (size_t)(s - m->slots);
	/* backward shift: an entry later in the run moves into the hole unless
	 * its home slot lies cyclically in (hole, j], where it must stay found */
	for (j = (hole + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;
		bool stays = hole < j ? home > hole && home <= j : home > hole || home <= j;

		if (!stays) {
			m->slots[hole] = m->slots[j];
			hole = j;
		}
	}
	m->slots[hole] = (struct hash_map_slot){ 0 };
	m->len--;
	return value;
}

void hash_map_each(const struct hash_map *m, void (*fn)(void *value, void *ctx), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].key)
			fn(m->slots[i].value, ctx);
}

void hash_map_free(struct hash_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

/* The values gathered into an array. */
struct value_list {
	void **v;
	size_t nr;
};

static void add_value(void *value, void *ctx)
{
	struct value_list *l = ctx;

	l->v[l->nr++] = value;
}

void **hash_map_values(const struct hash_map *m)
{
	struct value_list l = { calloc(m->len ? m->len : 1, sizeof(void *)), 0 };

	if (l.v)
		hash_map_each(m, add_value, &l);
	return l.v;
}

static void free_value(void *value, void *ctx)
{
	(void)ctx;
	free(value);
}

void hash_map_free_all(struct hash_map *m)
{
	hash_map_each(m, free_value, NULL);
	hash_map_free(m);
}

uint64_t hash_u64(uint64_t v)
{
	/* splitmix64 finalizer */
	v ^= v >> 30;
	v *= 0xbf58476d1ce4e5b9ULL;
	v ^= v >> 27;
	v *= 0x94d049bb133111ebULL;
	v ^= v >> 31;
	return v;
}

uint64_t hash_bytes(const void *p, size_t len, uint64_t seed)
{
	/* XXH3: a word at a time, where FNV-1a's byte-by-byte chain of
	 * multiplies made the pprof builder's string keys (a frame's DSO,
	 * function and address) a tenth of a profile */
	return XXH3_64bits_withSeed(p, len, seed);
}

uint64_t hash_string(const void *key)
{
	return hash_bytes(key, strlen(key), 0);
}

bool equal_string(const void *a, const void *b)
{
	return !strcmp(a, b);
}

uint64_t hash_u32_key(const void *key)
{
	return hash_u64(*(const uint32_t *)key);
}

bool equal_u32_key(const void *a, const void *b)
{
	return *(const uint32_t *)a == *(const uint32_t *)b;
}

uint64_t hash_u64_key(const void *key)
{
	return hash_u64(*(const uint64_t *)key);
}

bool equal_u64_key(const void *a, const void *b)
{
	return *(const uint64_t *)a == *(const uint64_t *)b;
}
