/* SPDX-License-Identifier: GPL-2.0-only */
/* seen_map.c: takes what the -g walks put in a hash map for the loader to name
 * (CPython's code objects, a JVM's methods): the keys and values put in since
 * the last call, taken out of the map, looked in only when the walks' count
 * of them moved. */
#include "capture/seen_map.h"

#include <bpf/bpf.h>
#include <string.h>

size_t seen_map_take(struct seen_map *m, void *keys, size_t key_size, void *values,
		     size_t value_size, size_t max)
{
	uint64_t added = *m->added;
	size_t nr = 0;

	/* nothing put in since it was found empty */
	if (added == m->emptied_at)
		return 0;
	/* from the first key each time: those taken are deleted */
	while (nr < max) {
		void *key = (char *)keys + nr * key_size, *value = (char *)values + nr * value_size;

		if (bpf_map_get_next_key(m->fd, NULL, key)) {
			m->emptied_at = added;
			break;
		}
		if (bpf_map_lookup_and_delete_elem(m->fd, key, value)) {
			/* (a kernel without it for hash maps: read, then delete) */
			if (bpf_map_lookup_elem(m->fd, key, value))
				memset(value, 0, value_size);
			if (bpf_map_delete_elem(m->fd, key))
				break;
		}
		nr++;
	}
	return nr;
}
