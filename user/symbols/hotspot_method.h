/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_method.h: names a HotSpot Method* of a running JVM,
 * "pkg.Class.method", from its memory: its ConstMethod's name in its constant
 * pool, and the class that holds the pool; and a bytecode index's source
 * line, from its compressed line number table. Every read bounded and
 * checked (an index past the pool, an entry that is no UTF-8 symbol, a name
 * longer than its room, a table without end are refused or cut, never
 * followed). */
#ifndef RINGTRACE_HOTSPOT_METHOD_H
#define RINGTRACE_HOTSPOT_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/hotspot_vmstructs.h"

/* The most bytes of one symbol (a class's or a method's name) read; a
 * longer one is cut, "..." at its end. */
#define HOTSPOT_SYMBOL_MAX 512
/* The most bytes of a method's line number table read (a method of 64 KiB
 * of bytecode, a line each few bytes, fits). */
#define HOTSPOT_LINE_TABLE_MAX 16384

/* Where what a name is read through is (offsets in their types, from the
 * JVM's own layout). */
struct hotspot_method_layout {
	uint64_t method_const_method;     /* Method::_constMethod */
	uint64_t const_method_constants;  /* ConstMethod::_constants */
	uint64_t const_method_name_index; /* ConstMethod::_name_index, a u2 */
	uint64_t pool_size;               /* sizeof(ConstantPool): its entries follow it */
	uint64_t pool_tags;               /* ConstantPool::_tags, an Array<u1>* */
	uint64_t pool_holder;             /* ConstantPool::_pool_holder */
	uint64_t pool_length;             /* ConstantPool::_length, an int */
	uint64_t array_length;            /* Array<int>::_length (every Array's) */
	uint64_t array_u1_data;           /* Array<u1>::_data */
	uint64_t klass_name;              /* Klass::_name */
	uint64_t symbol_length;           /* Symbol::_length, a u2 */
	uint64_t symbol_body;             /* Symbol::_body */
	uint64_t const_method_flags;      /* ConstMethod::_flags, a u2 */
	uint64_t const_method_code_size;  /* ConstMethod::_code_size, a u2 */
	uint64_t const_method_size;       /* sizeof(ConstMethod): its bytecodes follow it */
	uint16_t has_line_table;          /* ConstMethod::_has_linenumber_table, a flag */
	uint8_t utf8_tag;                 /* JVM_CONSTANT_Utf8 */
};

/* The layout out of v: 0, or -ENOENT with err naming what v lacks. */
int hotspot_method_layout_of(const struct hotspot_vmstructs *v, struct hotspot_method_layout *out,
			     char *err, size_t errlen);

/* Names method (a Method* of process pid) into buf (len >= 64):
 * "java.lang.String.valueOf", valid UTF-8, no control characters. 0, or
 * -errno (-ESRCH gone, -EFAULT unreadable, -EINVAL not a method: an index
 * past its pool, or an entry of another kind). */
int hotspot_method_name(uint32_t pid, const struct hotspot_method_layout *l, uint64_t method,
			char *buf, size_t len);

/* The name of a method whose class's symbol is the klass_len bytes at klass
 * and its own the name_len bytes at name (as read from a JVM: anything),
 * as hotspot_method_name writes it, into buf (len >= 64); cut: either was
 * longer, "..." at its end. */
void hotspot_method_format(const char *klass, size_t klass_len, const char *name,
			   size_t name_len, bool cut, char *buf, size_t len);

/* Text a JVM keeps (a source file's name: anything) made printable into buf
 * (size >= 8) as hotspot_method_format makes a name; cut: it was longer. */
void hotspot_text_format(const char *text, size_t len, bool cut, char *buf, size_t size);

/* A run of bytecode indexes [start, end) of one source line (0: none). */
struct hotspot_line_range {
	uint32_t start, end, line;
};

/* The runs of the bytecode indexes below bci_end by their line, in a line
 * number table of len bytes (as hotspot_line_of_bci reads it, each index's
 * line the one it gives), into out (at most max, which 2 * its entries + 1
 * always fits): their number; -EINVAL if the table ends before its end
 * mark; -E2BIG past max. */
int hotspot_line_ranges(const uint8_t *table, size_t len, uint32_t bci_end,
			struct hotspot_line_range *out, size_t max);

/* The source line of bytecode index bci in a line number table as
 * HotSpot compresses it (CompressedLineNumberReadStream: a byte for a
 * small step of bci and line, else 0xff and two signed UNSIGNED5 numbers;
 * 0 ends it), of len bytes: the line of the last entry at or before bci.
 * 0 and *line; -ENOENT if no entry is at or before it; -EINVAL if the table
 * ends before its end mark. */
int hotspot_line_of_bci(const uint8_t *table, size_t len, uint32_t bci, uint32_t *line);

/* The source line of bytecode index bci of method (a Method* of pid): 0
 * and *line; -ENOENT if it keeps no line numbers; -EINVAL if its table is
 * malformed or longer than HOTSPOT_LINE_TABLE_MAX; -errno. */
int hotspot_method_line(uint32_t pid, const struct hotspot_method_layout *l, uint64_t method,
			uint32_t bci, uint32_t *line);

#endif
