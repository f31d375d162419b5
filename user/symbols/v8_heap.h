/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_heap.h: V8's tagged values as another process holds them (x86-64 without
 * pointer compression): heap objects' fields and instance types read from its
 * memory, small integers decoded. */
#ifndef RINGTRACE_V8_HEAP_H
#define RINGTRACE_V8_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "symbols/v8_elf.h"

static inline bool v8_is_heap_object(uint64_t p)
{
	return (p & 3) == 1;
}

static inline bool v8_is_smi(uint64_t p)
{
	return !(p & 1);
}

static inline int64_t v8_smi_value(uint64_t p)
{
	return (int64_t)p >> 32;
}

/* The word at off of the heap object at tagged p of pid into *v: 0, or
 * -errno (process_memory_read's). */
int v8_field(uint32_t pid, uint64_t p, int64_t off, uint64_t *v);
/* The instance type of the heap object at tagged p of pid (its map's) into
 * *type: 0; -EINVAL if p or its map is no heap object; -errno. */
int v8_type_of(uint32_t pid, const struct v8_layout *l, uint64_t p, uint16_t *type);

#endif
