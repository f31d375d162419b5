/* SPDX-License-Identifier: GPL-2.0-only */
/* seen_map.h: takes what the -g walks put in a hash map for the loader to name
 * (CPython's code objects, a JVM's methods): the keys and values put in since
 * the last call, taken out of the map, looked in only when the walks' count
 * of them moved. */
#ifndef RINGTRACE_SEEN_MAP_H
#define RINGTRACE_SEEN_MAP_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

struct seen_map {
	int fd;
	/* the walks' count of entries put in, and its value when the map was
	 * last found empty */
	const volatile __u64 *added;
	uint64_t emptied_at;
};

/* Up to max entries, keys of key_size bytes into keys and their values of
 * value_size bytes into values (taken out of the map): how many. */
size_t seen_map_take(struct seen_map *m, void *keys, size_t key_size, void *values,
		     size_t value_size, size_t max);

#endif
