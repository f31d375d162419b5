/* SPDX-License-Identifier: GPL-2.0-only */
/* direct_cache.c: the slots of a direct-mapped cache, few at first and doubled
 * as misses fill them, up to a cap. */
#include "lib/direct_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void direct_cache_init(struct direct_cache *c, size_t slot_size, unsigned int max_bits,
		       direct_cache_keep_fn keep)
{
	memset(c, 0, sizeof(*c));
	c->slot_size = slot_size;
	c->max_bits = max_bits;
	c->keep = keep;
}

/* Makes 1 << bits slots and moves the kept entries into them: 0, or -ENOMEM if
 * memory ran out (the old slots are left as they were). Doubling splits
 * each old slot in two (one more top bit): no two kept entries meet. */
static int resize(struct direct_cache *c, unsigned int bits, const void *ctx)
{
	char *slots = calloc((size_t)1 << bits, c->slot_size);
	size_t old = c->slots ? (size_t)1 << c->bits : 0;

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < old; i++) {
		const char *e = (const char *)c->slots + i * c->slot_size;
		uint64_t h;

		if (c->keep(e, ctx, &h))
			memcpy(slots + (size_t)(h >> (64 - bits)) * c->slot_size, e, c->slot_size);
	}
	free(c->slots);
	c->slots = slots;
	c->bits = bits;
	c->fills = 0;
	return 0;
}

void *direct_cache_fill(struct direct_cache *c, uint64_t h, const void *ctx)
{
	if (!c->slots) {
		if (c->failed || resize(c, c->max_bits < DIRECT_CACHE_FIRST_BITS
						   ? c->max_bits : DIRECT_CACHE_FIRST_BITS, ctx)) {
			c->failed = true;
			return NULL;
		}
	} else if (c->bits < c->max_bits && ++c->fills >= (size_t)1 << c->bits) {
		if (resize(c, c->bits + 1, ctx))
			c->max_bits = c->bits; /* memory ran out: the slots there are do */
	}
	return direct_cache_slot(c, h);
}

void direct_cache_free(struct direct_cache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->bits = 0;
	c->fills = 0;
}
