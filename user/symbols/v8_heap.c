/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_heap.c: V8's tagged values as another process holds them (x86-64 without
 * pointer compression): heap objects' fields and instance types read from its
 * memory. */
#include "symbols/v8_heap.h"

#include <errno.h>

#include "sys/process_memory.h"

int v8_field(uint32_t pid, uint64_t p, int64_t off, uint64_t *v)
{
	return process_memory_u64(pid, p - 1 + (uint64_t)off, v);
}

int v8_type_of(uint32_t pid, const struct v8_layout *l, uint64_t p, uint16_t *type)
{
	uint64_t map;
	int e;

	if (!v8_is_heap_object(p))
		return -EINVAL;
	if ((e = v8_field(pid, p, 0, &map)))
		return e;
	if (!v8_is_heap_object(map))
		return -EINVAL;
	return process_memory_read(pid, map - 1 + (uint64_t)l->map_instance_type, type,
				   sizeof(*type));
}
