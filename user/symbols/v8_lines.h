/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_lines.h: the lines of a script's source where V8 has not made its table of line
 * ends: the source's newlines found once per script, kept for the functions after. */
#ifndef RINGTRACE_V8_LINES_H
#define RINGTRACE_V8_LINES_H

#include <stdint.h>

/* The most bytes of a script's source scanned, and line ends kept of it (a
 * function past them has no line), and scripts kept. */
#define V8_SOURCE_SCAN_MAX (4u << 20)
#define V8_SCRIPT_LINES_MAX 262144
#define V8_LINE_SCRIPTS 16

struct v8_lines {
	struct v8_script_lines {
		uint32_t pid;
		uint64_t chars;   /* where its characters are (its key, with pid and length) */
		int32_t length;
		uint32_t *ends;   /* positions of its newlines, ascending */
		uint32_t nr;
		uint64_t used;    /* the clock when last used: the least recently used goes */
	} script[V8_LINE_SCRIPTS];
	uint64_t clock;
	uint64_t scans;       /* sources scanned */
};

/* The 1-based line of position pos of the one-byte source of length bytes
 * whose characters are at chars in process pid: from its newlines, read
 * once (a scan of at most V8_SOURCE_SCAN_MAX bytes) and kept in c. 0 if the
 * source cannot be read, or pos is past what was scanned or kept. */
uint32_t v8_lines_at(struct v8_lines *c, uint32_t pid, uint64_t chars, int32_t length, int64_t pos);
void v8_lines_free(struct v8_lines *c);

#endif
