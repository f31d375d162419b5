/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_code.c: the JavaScript functions V8's optimizing compiler inlined at a pc of
 * a function's code, decoded from the code's source position table and its
 * deoptimization data's inlining positions, as V8's own stack traces find them
 * (AbstractCode::SourcePosition, OptimizedFrame::Summarize). Where V8 11.3
 * exports no offset, its layout is taken as OpenTelemetry's profiler takes it:
 * JSFunction's code three words after its SharedFunctionInfo, a Code's
 * instruction start two after its source position table, its flags one after,
 * its size 8 bytes after its flags; an inlining position 16 bytes (its
 * caller's source position, the inlined function's index among the literals). */
#include "symbols/v8_code.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/v8_heap.h"
#include "sys/process_memory.h"

/* A source position's fields (V8's SourcePosition): bit 0 external, its
 * script offset + 1 in bits 1-30, its inlining id + 1 in bits 31-46. */
#define POSITION_OFFSET(p) ((int64_t)(((uint64_t)(p) >> 1) & 0x3fffffff) - 1)
#define POSITION_INLINING(p) ((int64_t)(((uint64_t)(p) >> 31) & 0xffff) - 1)
#define INLINING_POSITION_BYTES 16
/* How near the next entry a sampled pc is taken as its (a loop's head). */
#define NEAR_NEXT_BYTES 32

/* A small integer's value, -1 for anything else. */
static int64_t smi(uint64_t p)
{
	return v8_is_smi(p) ? v8_smi_value(p) : -1;
}

/* A zigzag-encoded base-128 number at *at of table: 0, or -EINVAL. */
static int next_number(const uint8_t *table, size_t len, size_t *at, int64_t *out)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (*at >= len || shift > 63)
			return -EINVAL;
		b = table[(*at)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
	return 0;
}

int v8_position_at(const uint8_t *table, size_t len, int64_t off, int64_t *position,
		   int64_t *next_off, int64_t *next)
{
	int64_t code = 0, pos = 0, dc, dp;
	bool found = false;
	size_t at = 0;

	*next_off = -1;
	while (at < len) {
		if (next_number(table, len, &at, &dc) || next_number(table, len, &at, &dp))
			return -EINVAL;
		/* (a negative code offset difference: not a statement) */
		code += dc >= 0 ? dc : -(dc + 1);
		pos += dp;
		if (code > off) {
			*next_off = code;
			*next = pos;
			break;
		}
		*position = pos;
		found = true;
	}
	return found ? 0 : -ENOENT;
}

/* Slot i of the FixedArray (or WeakFixedArray: a weak reference's tag
 * made a strong one's) at p, within its length. */
static int slot(uint32_t pid, const struct v8_layout *l, uint64_t p, int64_t i, uint64_t *v)
{
	uint64_t length;
	int e;

	if ((e = v8_field(pid, p, l->fixed_length, &length)))
		return e;
	if (i < 0 || i >= smi(length))
		return -EINVAL;
	if ((e = v8_field(pid, p, l->fixed_data + i * 8, v)))
		return e;
	if ((*v & 3) == 3)
		*v &= ~(uint64_t)2;
	return 0;
}

/* The bytes of the ByteArray at p into a new buffer (*len of them, at most
 * max): 0, or -errno. */
static int byte_array(uint32_t pid, const struct v8_layout *l, uint64_t p, size_t max,
		      uint8_t **out, size_t *len)
{
	uint64_t length;
	int e;

	*out = NULL;
	if ((e = v8_field(pid, p, l->fixed_length, &length)))
		return e;
	if (smi(length) < 0 || (size_t)smi(length) > max)
		return -EINVAL;
	*len = (size_t)smi(length);
	if (!*len)
		return 0;
	if (!(*out = malloc(*len)))
		return -ENOMEM;
	if ((e = process_memory_read(pid, p - 1 + (uint64_t)l->fixed_data, *out, *len))) {
		free(*out);
		*out = NULL;
	}
	return e;
}

/* The functions at source position position of optimized code, innermost
 * first, into frames (at most max), the last sfi (tagged), the code's own:
 * how many, or -errno. literals and the inlining positions (in, in_len
 * bytes) are the code's. */
static int chain_at(uint32_t pid, const struct v8_layout *l, uint64_t literals, const uint8_t *in,
		    size_t in_len, uint64_t sfi, int64_t position, struct v8_inline_frame *frames,
		    size_t max)
{
	size_t nr = 0;
	uint16_t type;
	int e;

	/* each inlined function, from the innermost out to the code's own */
	while (POSITION_INLINING(position) >= 0 && nr + 1 < max) {
		size_t at = (size_t)POSITION_INLINING(position) * INLINING_POSITION_BYTES;
		int32_t index;
		uint64_t f;

		if (at + INLINING_POSITION_BYTES > in_len)
			return -EINVAL;
		memcpy(&position, in + at, sizeof(position));
		memcpy(&index, in + at + 8, sizeof(index));
		if ((e = slot(pid, l, literals, index, &f)))
			return e;
		if (v8_type_of(pid, l, f, &type) || type != l->type_sfi)
			return -EINVAL;
		frames[nr++].sfi = f - 1;
	}
	if (v8_type_of(pid, l, sfi, &type) || type != l->type_sfi)
		return -EINVAL;
	frames[nr++].sfi = sfi - 1;
	return (int)nr;
}

int v8_inlined_at(uint32_t pid, const struct v8_layout *l, uint64_t function, uint64_t ip,
		  bool exact, struct v8_inline_frame *frames, size_t max)
{
	int64_t istart_at = l->code_positions + 16, flags_at = istart_at + 8, off, position;
	int64_t next_off, next = 0;
	uint64_t code, start, deopt, literals, inlinings, sfi, fn;
	uint32_t flags = 0, size = 0;
	uint8_t *table = NULL, *in = NULL;
	size_t len = 0, in_len = 0;
	uint16_t type;
	int e;

	if (!max || max > V8_INLINE_FRAMES_MAX)
		return -EINVAL;
	/* its code, optimized (Maglev's or TurboFan's), holding ip */
	if ((e = v8_field(pid, function, l->function_shared + 24, &code)) ||
	    (e = v8_type_of(pid, l, code, &type)))
		return e;
	if (type != l->type_code)
		return -ENOENT;
	if ((e = v8_field(pid, code, istart_at, &start)) ||
	    (e = process_memory_read(pid, code - 1 + (uint64_t)flags_at, &flags, sizeof(flags))) ||
	    (e = process_memory_read(pid, code - 1 + (uint64_t)flags_at + 8, &size, sizeof(size))))
		return e;
	if ((int32_t)(flags & (uint32_t)l->code_kind_mask) <= l->code_kind_baseline ||
	    ip < start || ip >= start + size || (!exact && ip == start))
		return -ENOENT;
	/* V8 looks a return address's position up a byte before it */
	off = (int64_t)(ip - start) - (exact ? 0 : 1);
	if ((e = v8_field(pid, code, l->code_deopt_data, &deopt)) ||
	    (e = slot(pid, l, deopt, l->deopt_sfi, &sfi)) ||
	    (e = slot(pid, l, deopt, l->deopt_literals, &literals)) ||
	    (e = slot(pid, l, deopt, l->deopt_inlining, &inlinings)) ||
	    (e = v8_field(pid, code, l->code_positions, &fn)) ||
	    (e = byte_array(pid, l, fn, V8_POSITIONS_MAX, &table, &len)) ||
	    (e = byte_array(pid, l, inlinings, V8_INLININGS_MAX * INLINING_POSITION_BYTES, &in,
			    &in_len)))
		goto out;
	e = v8_position_at(table, len, off, &position, &next_off, &next);
	if (e == -ENOENT) {
		position = 0; /* (before the first entry: the function's own) */
		e = 0;
	}
	if (!e)
		e = chain_at(pid, l, literals, in, in_len, sfi, position, frames, max);
	/* a sampled pc just before the entry of a function inlined into the
	 * one its own entry names (a loop's head, which has none): that
	 * function's */
	if (e > 0 && exact && next_off >= 0 && next_off - off <= NEAR_NEXT_BYTES) {
		struct v8_inline_frame deeper[V8_INLINE_FRAMES_MAX];
		int d = chain_at(pid, l, literals, in, in_len, sfi, next, deeper, max);

		if (d > e && !memcmp(deeper + d - e, frames, (size_t)e * sizeof(*frames))) {
			memcpy(frames, deeper, (size_t)d * sizeof(*frames));
			e = d;
		}
	}
out:
	free(table);
	free(in);
	return e;
}
