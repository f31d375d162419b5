/* SPDX-License-Identifier: GPL-2.0-only */
/* terminal_text.c: control bytes of names printed as C escapes. */
#include "lib/terminal_text.h"

#include <stdio.h>

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
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
		unsigned char c = (unsigned char)*s;
		char esc[5];
		size_t n;

		if (!is_control(c)) {
			esc[0] = (char)c;
			n = 1;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			n = 2;
		} else {
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		}
		if (at + n >= len)
			break;
		for (size_t i = 0; i < n; i++)
			buf[at++] = esc[i];
	}
	buf[at] = '\0';
	return buf;
}
