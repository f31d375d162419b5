/* SPDX-License-Identifier: GPL-2.0-only */
/* extents.c: the free parts of a range of slots as sorted, coalesced
 * extents: first-fit allocation, frees merged with their neighbours. */
#include "lib/extents.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int extents_init(struct extents *e, uint32_t size)
{
	memset(e, 0, sizeof(*e));
	e->size = size;
	if (!size)
		return 0;
	e->free = malloc(sizeof(*e->free));
	if (!e->free)
		return -ENOMEM;
	e->cap = 1;
	e->nr = 1;
	e->free[0] = (struct extent){ 0, size };
	e->free_slots = size;
	return 0;
}

int64_t extents_alloc(struct extents *e, uint32_t len)
{
	for (size_t i = 0; len && i < e->nr; i++) {
		struct extent *x = &e->free[i];
		uint32_t start = x->start;

		if (x->len < len)
			continue;
		x->start += len;
		x->len -= len;
		if (!x->len) {
			memmove(x, x + 1, (e->nr - i - 1) * sizeof(*x));
			e->nr--;
		}
		e->free_slots -= len;
		return start;
	}
	return -1;
}

int extents_free(struct extents *e, uint32_t start, uint32_t len)
{
	uint64_t end = (uint64_t)start + len;
	size_t at = 0;
	bool joins_prev, joins_next;

	if (!len)
		return 0;
	if (end > e->size)
		return -EINVAL;
	while (at < e->nr && e->free[at].start < start)
		at++;
	/* the free extents on either side must end before it and start after */
	if ((at > 0 && (uint64_t)e->free[at - 1].start + e->free[at - 1].len > start) ||
	    (at < e->nr && e->free[at].start < end))
		return -EINVAL;
	joins_prev = at > 0 && (uint64_t)e->free[at - 1].start + e->free[at - 1].len == start;
	joins_next = at < e->nr && e->free[at].start == end;
	if (joins_prev && joins_next) {
		e->free[at - 1].len += len + e->free[at].len;
		memmove(&e->free[at], &e->free[at + 1], (e->nr - at - 1) * sizeof(e->free[0]));
		e->nr--;
	} else if (joins_prev) {
		e->free[at - 1].len += len;
	} else if (joins_next) {
		e->free[at].start = start;
		e->free[at].len += len;
	} else {
		if (e->nr == e->cap) {
			size_t cap = e->cap ? 2 * e->cap : 8;
			struct extent *grown = realloc(e->free, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			e->free = grown;
			e->cap = cap;
		}
		memmove(&e->free[at + 1], &e->free[at], (e->nr - at) * sizeof(e->free[0]));
		e->free[at] = (struct extent){ start, len };
		e->nr++;
	}
	e->free_slots += len;
	return 0;
}

uint32_t extents_largest(const struct extents *e)
{
	uint32_t largest = 0;

	for (size_t i = 0; i < e->nr; i++)
		if (e->free[i].len > largest)
			largest = e->free[i].len;
	return largest;
}

void extents_release(struct extents *e)
{
	free(e->free);
	memset(e, 0, sizeof(*e));
}
