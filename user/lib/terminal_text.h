/* SPDX-License-Identifier: GPL-2.0-only */
/* terminal_text.h: text a local user controls (comms, symbol names, paths)
 * made safe to print on a terminal: its control bytes written as C escapes
 * (\n, \t, \r, \x1b, ...), so that a name can neither break a table's lines
 * nor send the terminal commands. */
#ifndef RINGTRACE_TERMINAL_TEXT_H
#define RINGTRACE_TERMINAL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/byte_buffer.h"

/* Whether s has no control byte (below 0x20, or 0x7f): printed as it is. */
bool terminal_text_plain(const char *s);

/* s, if plain; else s escaped into buf (len > 0 bytes, cut short at an
 * escape's end if it does not fit), and buf returned. */
const char *terminal_text(const char *s, char *buf, size_t len);

/* Whether the len bytes at s are valid UTF-8 with no control byte:
 * terminal_text_utf8 would append them as they are. */
bool terminal_text_utf8_plain(const char *s, size_t len);

/* Appends the len bytes at s (NULs included, each a control byte) to out
 * as valid UTF-8 with no control byte: its control bytes escaped as
 * terminal_text escapes them, each byte of an invalid UTF-8 sequence as
 * U+FFFD (what Prometheus and protobuf readers require of text). false if
 * memory ran out (out then holds part of it). */
bool terminal_text_utf8(struct byte_buffer *out, const char *s, size_t len);

#endif
