/* SPDX-License-Identifier: GPL-2.0-only */
/* utf8.h: how long the valid UTF-8 sequence at a byte is, so that text from
 * recordings can be made valid UTF-8 (invalid bytes become U+FFFD). */
#ifndef RINGTRACE_UTF8_H
#define RINGTRACE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* U+FFFD REPLACEMENT CHARACTER, encoded. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/* The length of the valid UTF-8 sequence at p (at most left bytes, left > 0),
 * or 0 if it is not one (overlong, a surrogate, past U+10FFFF, cut short). */
size_t utf8_sequence(const uint8_t *p, size_t left);

#endif
