/* SPDX-License-Identifier: GPL-2.0-only */
/* extents.h: the free parts of a range of slots [0, size), as sorted,
 * coalesced extents: first-fit allocation, frees merged with their
 * neighbours; for tables loaded into a fixed BPF array and evicted from it. */
#ifndef RINGTRACE_EXTENTS_H
#define RINGTRACE_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

struct extent {
	uint32_t start, len;
};

struct extents {
	struct extent *free; /* sorted by start, none touching another */
	size_t nr, cap;
	uint32_t size;       /* the range's */
	uint64_t free_slots; /* the sum of the free extents' lengths */
};

/* All of [0, size) free. -ENOMEM if memory ran out. */
int extents_init(struct extents *e, uint32_t size);
/* The start of len slots taken from the first free extent that holds them;
 * -1 if none does (len 0: -1 too). */
int64_t extents_alloc(struct extents *e, uint32_t len);
/* [start, start + len) free again (taken before, by extents_alloc). -EINVAL
 * if it overlaps what is free or leaves the range; -ENOMEM if memory ran out
 * (the slots then stay taken). */
int extents_free(struct extents *e, uint32_t start, uint32_t len);
/* The longest free extent's length. */
uint32_t extents_largest(const struct extents *e);
void extents_release(struct extents *e);

#endif
