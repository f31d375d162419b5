/* SPDX-License-Identifier: GPL-2.0-only */
/* text_out.c: text formatted into a buffer of our own and handed to a FILE
 * in big blocks. */
#include "report/text_out.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/prefault.h"

/* The buffer at first: a short output (a small recording) never touches
 * the pages of a whole block. */
#define TEXT_OUT_FIRST (64u << 10)

const char text_out_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void text_out_init(struct text_out *t, FILE *file)
{
	*t = (struct text_out){ .file = file };
	t->line_by_line = fileno(file) >= 0 && isatty(fileno(file));
}

__attribute__((noinline)) bool text_out_grow(struct text_out *t, size_t n)
{
	struct byte_buffer *b = &t->buf;
	size_t cap = b->cap ? b->cap : TEXT_OUT_FIRST, full = TEXT_OUT_BLOCK + 4096;
	uint8_t *grown;

	/* doubling up to a block and a line (where it stays: a block is
	 * written out as it fills), further only for a line longer still */
	while (cap - b->len < n)
		cap = cap < full && cap * 2 > full ? full : cap * 2;
	grown = realloc(b->data, cap);
	if (!grown) {
		t->out_of_memory = true;
		return false;
	}
	prefault(grown + b->len, cap - b->len);
	b->data = grown;
	b->cap = cap;
	return true;
}

int text_out_flush(struct text_out *t)
{
	if (t->out_of_memory)
		return -ENOMEM;
	if (t->buf.len && fwrite_unlocked(t->buf.data, 1, t->buf.len, t->file) != t->buf.len)
		return errno ? -errno : -EIO;
	t->buf.len = 0;
	return ferror(t->file) ? -EIO : 0;
}

int text_out_done(struct text_out *t)
{
	if (t->out_of_memory)
		return -ENOMEM;
	return t->buf.len >= TEXT_OUT_BLOCK || t->line_by_line ? text_out_flush(t) : 0;
}

void text_out_free(struct text_out *t)
{
	byte_buffer_free(&t->buf);
}
