/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_vmstructs.h: the layout a running HotSpot JVM describes of itself,
 * read from its memory: fields' offsets and statics' addresses
 * (gHotSpotVMStructs), types' sizes (gHotSpotVMTypes) and constants
 * (gHotSpotVMIntConstants, gHotSpotVMLongConstants), every table, entry and
 * name bounded. What a Java frame walk needs is looked up in it by name, as
 * HotSpot's own serviceability agent does. */
#ifndef RINGTRACE_HOTSPOT_VMSTRUCTS_H
#define RINGTRACE_HOTSPOT_VMSTRUCTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hash_map.h"
#include "symbols/hotspot_elf.h"

/* Entries read of one table at most (OpenJDK 17: ~1,900 fields, ~900 types,
 * ~900 int constants), and the longest name kept (a longer one's entry is
 * skipped, and counted). */
#define HOTSPOT_TABLE_MAX 8192
#define HOTSPOT_NAME_MAX 160
/* The largest entry read (OpenJDK's are 48 bytes at most). */
#define HOTSPOT_ENTRY_MAX 256

struct hotspot_vmstructs {
	struct hash_map fields;    /* "Type::_field": its offset, or a static's address */
	struct hash_map types;     /* "Type": its size */
	struct hash_map constants; /* "name": an int or long constant */
	unsigned int nr_fields, nr_types, nr_constants;
	unsigned int skipped;      /* entries whose names were longer than HOTSPOT_NAME_MAX */
};

/* Reads the layout of the JVM of process pid whose libjvm.so (e, as
 * hotspot_elf_inspect found it) is loaded bias bytes above its vaddrs: 0;
 * -EAGAIN if the JVM has not set its tables up yet (it is starting); -E2BIG
 * if a table has more than HOTSPOT_TABLE_MAX entries; -EINVAL if one is
 * malformed; -ENOMEM; -errno if its memory cannot be read. err says which. */
int hotspot_vmstructs_read(uint32_t pid, const struct hotspot_elf *e, uint64_t bias,
			   struct hotspot_vmstructs *out, char *err, size_t errlen);

/* A non-static field's offset in its type ("Method", "_constMethod"). */
bool hotspot_field_offset(const struct hotspot_vmstructs *v, const char *type, const char *field,
			  uint64_t *offset);
/* A static field's address in the process ("CodeCache", "_heaps"). */
bool hotspot_static_address(const struct hotspot_vmstructs *v, const char *type,
			    const char *field, uint64_t *address);
/* A type's size in bytes ("Method"). */
bool hotspot_type_size(const struct hotspot_vmstructs *v, const char *type, uint64_t *size);
/* An int or long constant ("frame::interpreter_frame_method_offset"). */
bool hotspot_constant(const struct hotspot_vmstructs *v, const char *name, int64_t *value);

void hotspot_vmstructs_free(struct hotspot_vmstructs *v);

#endif
