/* SPDX-License-Identifier: GPL-2.0-only */
/* text_out.h: text formatted into a buffer of our own and handed to a FILE
 * in big blocks (millions of lines: a stdio call per field costs more than
 * formatting the field), with the writers of strings, padded fields and
 * numbers that perf's printf formats would be. Inline: they run for every
 * field of every line. */
#ifndef RINGTRACE_TEXT_OUT_H
#define RINGTRACE_TEXT_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/byte_buffer.h"

/* Blocks handed to the FILE: 1 MiB blocks cost less CPU than 256 KiB ones
 * here (a script of 1M samples to a file: 0.52 against 0.64 s, median of 6). */
#define TEXT_OUT_BLOCK (1u << 20)

struct text_out {
	FILE *file;
	struct byte_buffer buf; /* formatted, not yet written to file */
	bool out_of_memory;
	bool line_by_line; /* file is a terminal: each record written as it is done */
};

/* Text to file (line by line when it is a terminal). */
void text_out_init(struct text_out *t, FILE *file);
/* Grows the buffer to room for n more bytes; false if memory ran out. */
bool text_out_grow(struct text_out *t, size_t n);
/* Hands what was formatted to the file: 0, -ENOMEM if memory ran out
 * before, or -errno if writing failed. */
int text_out_flush(struct text_out *t);
/* At the end of a record: writes out a full block (or the line). */
int text_out_done(struct text_out *t);
void text_out_free(struct text_out *t);

/* "00" to "99": decimals are written two digits a step. */
extern const char text_out_digit_pairs[201];

/* Room for n more bytes in the buffer; false if memory ran out (the buffer
 * grows only at the start). */
static inline __attribute__((always_inline)) bool text_out_room(struct text_out *t, size_t n)
{
	return t->buf.cap - t->buf.len >= n || text_out_grow(t, n);
}

/* Where the next byte goes: text_out_room first. */
static inline uint8_t *text_out_end(struct text_out *t)
{
	return t->buf.data + t->buf.len;
}

/* Copies n bytes (a constant of 16 or more) in 16-byte moves, the last one
 * overlapping: memcpy of a constant size is compiled to "rep movs" here,
 * which costs tens of cycles to start, more than the copy. */
typedef uint8_t text_out_bytes16 __attribute__((vector_size(16), aligned(1), may_alias));

static inline __attribute__((always_inline)) void text_out_copy_whole(void *dst, const void *src,
								      size_t n)
{
	for (size_t i = 0; i + 16 < n; i += 16)
		*(text_out_bytes16 *)((uint8_t *)dst + i) =
			*(const text_out_bytes16 *)((const uint8_t *)src + i);
	*(text_out_bytes16 *)((uint8_t *)dst + n - 16) =
		*(const text_out_bytes16 *)((const uint8_t *)src + n - 16);
}

static inline void text_out_bytes(struct text_out *t, const void *p, size_t n)
{
	/* nothing (the buffer may not exist yet: no offset from NULL) */
	if (!n || !text_out_room(t, n))
		return;
	memcpy(t->buf.data + t->buf.len, p, n);
	t->buf.len += n;
}

static inline void text_out_char(struct text_out *t, char c)
{
	if (!text_out_room(t, 1))
		return;
	t->buf.data[t->buf.len++] = (uint8_t)c;
}

static inline void text_out_string(struct text_out *t, const char *s)
{
	text_out_bytes(t, s, strlen(s));
}

/* Writes s (len bytes) padded with spaces to width: on the left (right-
 * aligned) or, when left, after it. */
static inline void text_out_padded(struct text_out *t, const char *s, size_t len, int width,
				   bool left)
{
	size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
	uint8_t *at;

	if (!(len + pad) || !text_out_room(t, len + pad))
		return;
	at = t->buf.data + t->buf.len;
	if (!left)
		memset(at, ' ', pad);
	memcpy(at + (left ? 0 : pad), s, len);
	if (left)
		memset(at + len, ' ', pad);
	t->buf.len += len + pad;
}

/* The decimal digits of v, at least min_digits of them (zeros in front),
 * ending at end; returns where they start. */
static inline char *text_out_decimal(char *end, uint64_t v, int min_digits)
{
	char *p = end;

	while (v >= 100) {
		const char *d = &text_out_digit_pairs[v % 100 * 2];

		v /= 100;
		*--p = d[1];
		*--p = d[0];
	}
	if (v >= 10) {
		*--p = text_out_digit_pairs[v * 2 + 1];
		*--p = text_out_digit_pairs[v * 2];
	} else {
		*--p = (char)('0' + v);
	}
	while (end - p < min_digits)
		*--p = '0';
	return p;
}

/* printf's %[-]<width>d of a value printed as a C int (pid -1 prints -1). */
static inline void text_out_int(struct text_out *t, uint32_t value, int width, bool left)
{
	int v = (int)value;
	char buf[16], *end = buf + sizeof(buf), *p;

	p = text_out_decimal(end, v < 0 ? -(uint64_t)v : (uint64_t)v, 1);
	if (v < 0)
		*--p = '-';
	text_out_padded(t, p, (size_t)(end - p), width, left);
}

/* Writes v in lowercase hex, right-aligned in width columns (0: as wide as
 * it is): parsing printf's format for each of millions of frames costs more
 * than the rest of script together. */
static inline void text_out_hex(struct text_out *t, uint64_t v, int width)
{
	static const char digits[] = "0123456789abcdef";
	char buf[32];
	int at = sizeof(buf);

	do {
		buf[--at] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	while ((int)sizeof(buf) - at < width)
		buf[--at] = ' ';
	text_out_bytes(t, buf + at, sizeof(buf) - (size_t)at);
}

#endif
