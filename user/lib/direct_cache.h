/* SPDX-License-Identifier: GPL-2.0-only */
/* direct_cache.h: the slots of a direct-mapped cache, few at first and doubled
 * as misses fill them, up to a cap: a short input touches a page, a long one
 * soon has every slot (the entries kept). Used for resolved addresses and the
 * lines and rows made of them. */
#ifndef RINGTRACE_DIRECT_CACHE_H
#define RINGTRACE_DIRECT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the entry in slot is worth keeping when the slots double (ctx is
 * what direct_cache_fill was given), and if so the hash it was filled in by. */
typedef bool (*direct_cache_keep_fn)(const void *slot, const void *ctx, uint64_t *hash);

struct direct_cache {
	void *slots;           /* 1 << bits of slot_size bytes, zeroed when made; NULL: none yet */
	size_t slot_size;
	unsigned int bits;     /* 0 while there are no slots */
	unsigned int max_bits; /* the cap */
	bool failed;           /* memory ran out: no more slots are tried */
	size_t fills;          /* entries filled in since the slots last doubled */
	direct_cache_keep_fn keep;
};

/* The slots it starts with: 64 (or the cap, if less). */
#define DIRECT_CACHE_FIRST_BITS 6

/* No slots yet; at most 1 << max_bits (max_bits from 1 to 31) of slot_size. */
void direct_cache_init(struct direct_cache *c, size_t slot_size, unsigned int max_bits,
		       direct_cache_keep_fn keep);

/* The slot that hash h chooses (its top bits), or NULL while there are none. */
static inline void *direct_cache_slot(const struct direct_cache *c, uint64_t h)
{
	return c->slots ? (char *)c->slots + (size_t)(h >> (64 - c->bits)) * c->slot_size : NULL;
}

/* The slot to fill in with a new entry of hash h, after a miss: the first
 * slots are made now, and the slots are doubled (the entries keep keeps moved
 * into them) once as many entries were filled in as there are slots. NULL if
 * memory ran out for the first ones: then nothing is cached (a hint). */
void *direct_cache_fill(struct direct_cache *c, uint64_t h, const void *ctx);

void direct_cache_free(struct direct_cache *c);

#endif
