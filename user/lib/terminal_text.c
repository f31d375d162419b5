/* SPDX-License-Identifier: GPL-2.0-only */
/* terminal_text.c: control bytes of names printed as C escapes. */
#include "lib/terminal_text.h"

#include <stdint.h>
#include <stdio.h>

#include "lib/utf8.h"

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* c as it is printed: itself, or its escape; its length (at most 4). */
static size_t escape(unsigned char c, char esc[5])
{
	if (!is_control(c)) {
		esc[0] = (char)c;
		return 1;
	}
	if (c == '\n' || c == '\t' || c == '\r') {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		return 2;
	}
	return (size_t)snprintf(esc, 5, "\\x%02x", c);
}

bool terminal_text_plain(const char *s)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			return false;
	return true;
}

const char *terminal_text(const char *s, char *buf, size_t len)
{
	size_t at = 0;

	if (terminal_text_plain(s))
		return s;
	for (; *s; s++) {
		char esc[5];
		size_t n = escape((unsigned char)*s, esc);

		if (at + n >= len)
			break;
		for (size_t i = 0; i < n; i++)
			buf[at++] = esc[i];
	}
	buf[at] = '\0';
	return buf;
}

bool terminal_text_utf8_plain(const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;

	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_sequence(p + i, len - i)) || (n == 1 && is_control(p[i])))
			return false;
	return true;
}

bool terminal_text_utf8(struct byte_buffer *out, const char *s, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_sequence(p + i, len - i);
		char esc[5];

		if (!n) {
			if (!byte_buffer_append(out, UTF8_REPLACEMENT, 3))
				return false;
			n = 1;
		} else if (n == 1) {
			if (!byte_buffer_append(out, esc, escape(p[i], esc)))
				return false;
		} else if (!byte_buffer_append(out, p + i, n)) {
			return false;
		}
		i += n;
	}
	return true;
}
