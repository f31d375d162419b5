/* SPDX-License-Identifier: GPL-2.0-only */
/* key_text.h: the text keys of hash tables written without printf (a
 * profile makes several for each frame of each sample): strings and numbers
 * in hex appended to a fixed buffer, cut at its end, never past it. */
#ifndef RINGTRACE_KEY_TEXT_H
#define RINGTRACE_KEY_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct key_text {
	char *at;  /* where the next byte goes; a NUL is there */
	char *end; /* the last byte, kept for the NUL */
};

static inline void key_text_init(struct key_text *k, char *buf, size_t size)
{
	k->at = buf;
	k->end = buf + size - 1;
	*buf = '\0';
}

static inline void key_text_str(struct key_text *k, const char *s)
{
	size_t n = strlen(s), room = (size_t)(k->end - k->at);

	n = n < room ? n : room;
	memcpy(k->at, s, n);
	k->at += n;
	*k->at = '\0';
}

static inline void key_text_char(struct key_text *k, char c)
{
	if (k->at < k->end)
		*k->at++ = c;
	*k->at = '\0';
}

/* v in lower-case hex, as "%" PRIx64 writes it. */
static inline void key_text_hex(struct key_text *k, uint64_t v)
{
	char digits[16];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	while (n && k->at < k->end)
		*k->at++ = digits[--n];
	*k->at = '\0';
}

#endif
