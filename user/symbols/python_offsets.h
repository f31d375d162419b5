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
	struct rt_python_offsets walk; /* what the BPF side reads */
	/* what naming a code object reads (PyCodeObject, PyUnicodeObject) */
	uint16_t object_type;      /* PyObject.ob_type */
	uint16_t code_filename;    /* PyCodeObject.co_filename */
	uint16_t code_name;        /* .co_name */
	uint16_t code_qualname;    /* .co_qualname */
	uint16_t code_firstlineno; /* .co_firstlineno (an int) */
	uint16_t code_read;        /* bytes of a code object read: its fields above are below */
	uint16_t unicode_length;   /* PyASCIIObject.length */
	uint16_t unicode_state;    /* PyASCIIObject.state (a 32-bit bitfield) */
	uint16_t ascii_data;       /* sizeof(PyASCIIObject): a compact ASCII string's bytes */
	uint16_t compact_data;     /* sizeof(PyCompactUnicodeObject): a compact string's others */
};

/* The table's entry for major.minor and its index (the python_offsets
 * map's key), or NULL: a version without one is not unwound. */
const struct python_version_offsets *python_offsets_for(unsigned int major, unsigned int minor,
							 uint32_t *index);
/* Entry i of the table, or NULL past its end. */
const struct python_version_offsets *python_offsets_at(uint32_t i);

#endif
