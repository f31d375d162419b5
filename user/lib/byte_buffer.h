/* SPDX-License-Identifier: GPL-2.0-only */
/* byte_buffer.h: a growable byte buffer, used to assemble records and file
 * sections in memory before they are written out whole. */
#ifndef RINGTRACE_BYTE_BUFFER_H
#define RINGTRACE_BYTE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct byte_buffer {
	uint8_t *data;
	size_t len;
	size_t cap;
};

/* Appends len bytes (zeroes if src is NULL); returns where they start, or NULL
 * if memory ran out (the buffer is left as it was). */
void *byte_buffer_append(struct byte_buffer *b, const void *src, size_t len);
/* Appends zero bytes until len is a multiple of align (a power of two); 0, or
 * -ENOMEM. */
int byte_buffer_pad(struct byte_buffer *b, size_t align);
void byte_buffer_reset(struct byte_buffer *b);
void byte_buffer_free(struct byte_buffer *b);

#endif
