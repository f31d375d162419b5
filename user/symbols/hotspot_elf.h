/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_elf.h: recognizes a HotSpot JVM's libjvm.so by the tables of its own
 * layout it exports (gHotSpotVMStructs and the rest), and says where they are. */
#ifndef RINGTRACE_HOTSPOT_ELF_H
#define RINGTRACE_HOTSPOT_ELF_H

#include <stdbool.h>
#include <stdint.h>

/* The exports, each a variable of libjvm.so: a table's first entry (a
 * pointer to it), then the offsets in an entry of what is read of it, then
 * the entry's size. The offsets and sizes are set as the JVM starts. */
enum hotspot_export {
	HOTSPOT_STRUCTS,
	HOTSPOT_STRUCT_TYPE_NAME,
	HOTSPOT_STRUCT_FIELD_NAME,
	HOTSPOT_STRUCT_IS_STATIC,
	HOTSPOT_STRUCT_OFFSET,
	HOTSPOT_STRUCT_ADDRESS,
	HOTSPOT_STRUCT_STRIDE,
	HOTSPOT_TYPES,
	HOTSPOT_TYPE_NAME,
	HOTSPOT_TYPE_SIZE,
	HOTSPOT_TYPE_STRIDE,
	HOTSPOT_INTS,
	HOTSPOT_INT_NAME,
	HOTSPOT_INT_VALUE,
	HOTSPOT_INT_STRIDE,
	HOTSPOT_LONGS,
	HOTSPOT_LONG_NAME,
	HOTSPOT_LONG_VALUE,
	HOTSPOT_LONG_STRIDE,
	HOTSPOT_EXPORTS
};

struct hotspot_elf {
	uint64_t vaddr[HOTSPOT_EXPORTS]; /* each export's address in the file */
	uint64_t first_load_vaddr;       /* its first PT_LOAD's p_vaddr, page aligned */
	int64_t exec_vaddr_delta;        /* its code's p_vaddr less its p_offset */
};

/* Whether a file named name (a path; its last part is looked at) may be a
 * HotSpot JVM: libjvm.so. */
bool hotspot_elf_name_may_be(const char *name);
/* 0 and *out if the ELF file open as fd (the caller's, left open) exports
 * every table of a HotSpot JVM's layout; -ENOENT if it does not; -errno if
 * it cannot be read. */
int hotspot_elf_inspect(int fd, struct hotspot_elf *out);

#endif
