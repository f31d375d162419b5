/* SPDX-License-Identifier: GPL-2.0-only */
/* hash_map.h: an open-addressing hash map from caller-owned keys to values,
 * with the caller's hash and equality; used for processes, DSOs and report rows. */
#ifndef RINGTRACE_HASH_MAP_H
#define RINGTRACE_HASH_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t (*hash_map_hash_fn)(const void *key);
typedef bool (*hash_map_equal_fn)(const void *a, const void *b);

struct hash_map_slot {
	uint64_t hash;
	const void *key; /* NULL: empty */
	void *value;
};

struct hash_map {
	struct hash_map_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t len;
	hash_map_hash_fn hash;
	hash_map_equal_fn equal;
};

void hash_map_init(struct hash_map *m, hash_map_hash_fn hash, hash_map_equal_fn equal);
/* The value stored under key, or NULL. */
void *hash_map_get(const struct hash_map *m, const void *key);
/* Stores value under key (key must stay valid while stored; typically it
 * points inside value). Replaces an equal key's value. -ENOMEM if memory ran out. */
int hash_map_put(struct hash_map *m, const void *key, void *value);
/* The value stored under the u32 key of a map keyed by u32s inside their
 * values; else a new zeroed value of value_size bytes, key written at its
 * key_offset, stored under it (*added set if added is not NULL). NULL if
 * memory ran out. */
void *hash_map_get_or_add_u32(struct hash_map *m, uint32_t key, size_t value_size,
			      size_t key_offset, bool *added);
/* Removes key; its value (for the caller to free), or NULL if absent. */
void *hash_map_remove(struct hash_map *m, const void *key);
/* Calls fn on every value, in no particular order. */
void hash_map_each(const struct hash_map *m, void (*fn)(void *value, void *ctx), void *ctx);
/* Every value, in no particular order: a new array of m->len of them (at
 * least one slot), or NULL if memory ran out. */
void **hash_map_values(const struct hash_map *m);
void hash_map_free(struct hash_map *m);
/* Frees every value (each a malloc'd block) with free(), then the map: empty
 * after, as hash_map_free leaves it. */
void hash_map_free_all(struct hash_map *m);

/* Hash helpers. */
uint64_t hash_u64(uint64_t v);
uint64_t hash_bytes(const void *p, size_t len, uint64_t seed);
uint64_t hash_string(const void *key);         /* key is a const char * */
bool equal_string(const void *a, const void *b);
uint64_t hash_u32_key(const void *key);        /* key points to a uint32_t */
bool equal_u32_key(const void *a, const void *b);
uint64_t hash_u64_key(const void *key);        /* key points to a uint64_t */
bool equal_u64_key(const void *a, const void *b);

#endif
