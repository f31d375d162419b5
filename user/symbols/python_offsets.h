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

#endif
