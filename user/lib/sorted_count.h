/* SPDX-License-Identifier: GPL-2.0-only */
/* sorted_count.h: in an array sorted by a u64 key, how many elements have a
 * key at or below a value (a binary search): the index after the last such. */
#ifndef RINGTRACE_SORTED_COUNT_H
#define RINGTRACE_SORTED_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* n elements of size bytes at array, each with its u64 key at key_offset,
 * in ascending order of key: how many have key <= x. */
static inline size_t sorted_count_at_or_below(const void *array, size_t n, size_t size,
					      size_t key_offset, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key;

		memcpy(&key, (const char *)array + mid * size + key_offset, sizeof(key));
		if (key <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
