/* SPDX-License-Identifier: GPL-2.0-only */
/* python_offsets.h: the offsets of CPython's structures, per minor version, that the
 * -g walk and the naming of code objects read. */
#ifndef RINGTRACE_PYTHON_OFFSETS_H
#define RINGTRACE_PYTHON_OFFSETS_H

#include <stddef.h>
#include <stdint.h>

#include "python_maps.h"

struct python_version_offsets {
	unsigned int major, minor;
	unsigned int minor_last; /* the last minor version with these offsets (0: minor's alone) */
	struct rt_python_offsets walk; /* what the BPF side reads */
	/* what naming a code object reads besides walk's co_filename,
	 * co_qualname, co_firstlineno and PyASCIIObject fields */
	uint16_t object_type;      /* PyObject.ob_type */
	uint16_t code_name;        /* PyCodeObject.co_name */
	uint16_t code_read;        /* bytes of a code object read: its fields are below */
	uint16_t compact_data;     /* sizeof(PyCompactUnicodeObject): a compact string's others */
};

/* The table's entry for major.minor and its index (the python_offsets
 * map's key), or NULL: a version without one is not unwound. */
const struct python_version_offsets *python_offsets_for(unsigned int major, unsigned int minor,
							 uint32_t *index);
/* Entry i of the table, or NULL past its end. */
const struct python_version_offsets *python_offsets_at(uint32_t i);
/* The entries of the table. */
uint32_t python_offsets_count(void);
/* What an interpreter's own _Py_DebugOffsets (len bytes from the start of
 * its _PyRuntime, PYTHON_DEBUG_OFFSETS_COOKIE first) says of the offsets in
 * base (its version's entry), into out: base's values for what it does not
 * give. 1 if out is usable (a layout known here: 3.13's; offsets within
 * what the walk reads), 0 if the block is of no layout known here (base
 * holds), -1 if it gives offsets the walk cannot read (the process is not
 * to be walked). */
int python_offsets_from_debug(const uint8_t *block, size_t len,
			      const struct python_version_offsets *base,
			      struct python_version_offsets *out);

#endif
