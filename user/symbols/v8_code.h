/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_code.h: the JavaScript functions V8's optimizing compiler inlined at a pc of
 * a function's code, decoded from the code's source position table and its
 * deoptimization data's inlining positions, as V8's own stack traces find them. */
#ifndef RINGTRACE_V8_CODE_H
#define RINGTRACE_V8_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/v8_elf.h"

/* Bytes of a source position table, and inlining positions, read at most
 * (a larger code's pcs are not decoded). */
#define V8_POSITIONS_MAX 65536
#define V8_INLININGS_MAX 1024
/* Functions at one pc decoded, at most. */
#define V8_INLINE_FRAMES_MAX 16

/* One function at a pc: its SharedFunctionInfo (untagged). */
struct v8_inline_frame {
	uint64_t sfi;
};

/* The functions at ip (the sampled pc if exact, else a return address) of
 * the JSFunction at function (tagged) of process pid, whose code holds
 * ip: innermost first into frames (at most max, at most
 * V8_INLINE_FRAMES_MAX), the last the code's own
 * function. How many (1: none inlined there); -ENOENT if its code does not
 * hold ip (other code: on-stack replacement's, or code replaced since) or
 * is not optimized; -EINVAL if it is not laid out as l says; -errno if it
 * cannot be read. */
int v8_inlined_at(uint32_t pid, const struct v8_layout *l, uint64_t function, uint64_t ip,
		  bool exact, struct v8_inline_frame *frames, size_t max);

/* The source position in effect at code offset off of a source position
 * table (len bytes of V8's encoding: each entry the code offset's and the
 * position's differences from the last's, zigzag-encoded base-128 numbers,
 * the code offset's sign the statement flag): 0 and *position, or -ENOENT
 * if no entry is at or before off, -EINVAL if the table is cut; the next
 * entry's code offset in *next_off and position in *next (-1: none). */
int v8_position_at(const uint8_t *table, size_t len, int64_t off, int64_t *position,
		   int64_t *next_off, int64_t *next);

#endif
