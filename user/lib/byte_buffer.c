/* SPDX-License-Identifier: GPL-2.0-only */
/* byte_buffer.c: a growable byte buffer, used to assemble records and file
 * sections in memory before they are written out whole. */
#include "lib/byte_buffer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/prefault.h"

void *byte_buffer_append(struct byte_buffer *b, const void *src, size_t len)
{
	uint8_t *at;

	if (len > SIZE_MAX / 2 - b->len)
		return NULL;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *grown;

		while (cap < b->len + len)
			cap *= 2;
		grown = realloc(b->data, cap);
		if (!grown)
			return NULL;
		prefault(grown + b->len, cap - b->len); /* what is about to be written */
		b->data = grown;
		b->cap = cap;
	}
	at = b->data + b->len;
	if (src)
		memcpy(at, src, len);
	else
		memset(at, 0, len);
	b->len += len;
	return at;
}

int byte_buffer_pad(struct byte_buffer *b, size_t align)
{
	size_t rem = b->len & (align - 1);

	if (rem && !byte_buffer_append(b, NULL, align - rem))
		return -ENOMEM;
	return 0;
}

void byte_buffer_reset(struct byte_buffer *b)
{
	b->len = 0;
}

void byte_buffer_free(struct byte_buffer *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
