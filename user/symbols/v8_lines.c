/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_lines.c: the lines of a script's source where V8 has not made its table of line
 * ends: the source's newlines found once per script, kept for the functions after
 * (a bundle of thousands of functions is read once, not once a function). */
#include "symbols/v8_lines.h"

#include <stdlib.h>
#include <string.h>

#include "sys/process_memory.h"

#define SCAN_CHUNK 65536

/* The newlines of the source into e (e's key set): 0, or -1. */
static int scan(struct v8_script_lines *e)
{
	static __thread char chunk[SCAN_CHUNK];
	uint64_t len = (uint64_t)e->length < V8_SOURCE_SCAN_MAX ? (uint64_t)e->length
								 : V8_SOURCE_SCAN_MAX;
	uint32_t room = 1024;

	e->nr = 0;
	e->ends = malloc(room * sizeof(*e->ends));
	if (!e->ends)
		return -1;
	for (uint64_t at = 0; at < len;) {
		size_t n = len - at < SCAN_CHUNK ? (size_t)(len - at) : SCAN_CHUNK;

		if (process_memory_read(e->pid, e->chars + at, chunk, n))
			return -1;
		for (const char *c = chunk; (c = memchr(c, '\n', n - (size_t)(c - chunk))); c++) {
			if (e->nr == V8_SCRIPT_LINES_MAX)
				return 0;
			if (e->nr == room) {
				uint32_t *more = realloc(e->ends, 2 * room * sizeof(*e->ends));

				if (!more)
					return -1;
				e->ends = more;
				room *= 2;
			}
			e->ends[e->nr++] = (uint32_t)(at + (uint64_t)(c - chunk));
		}
		at += n;
	}
	return 0;
}

uint32_t v8_lines_at(struct v8_lines *c, uint32_t pid, uint64_t chars, int32_t length, int64_t pos)
{
	struct v8_script_lines *e = NULL, *oldest = &c->script[0];
	size_t lo = 0, hi;

	if (pos < 0 || pos > length || length < 0)
		return 0;
	for (int i = 0; i < V8_LINE_SCRIPTS && !e; i++) {
		struct v8_script_lines *s = &c->script[i];

		if (s->ends && s->pid == pid && s->chars == chars && s->length == length)
			e = s;
		else if (s->used < oldest->used)
			oldest = s;
	}
	if (!e) {
		e = oldest;
		free(e->ends);
		*e = (struct v8_script_lines){ .pid = pid, .chars = chars, .length = length };
		c->scans++;
		if (scan(e)) {
			free(e->ends);
			e->ends = NULL;
			return 0;
		}
	}
	e->used = ++c->clock;
	/* past what was scanned, or past the newlines kept: not known */
	if ((uint64_t)pos > V8_SOURCE_SCAN_MAX ||
	    (e->nr == V8_SCRIPT_LINES_MAX && pos > (int64_t)e->ends[e->nr - 1]))
		return 0;
	/* the lines whose end is before pos, and one */
	hi = e->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->ends[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo + 1;
}

void v8_lines_free(struct v8_lines *c)
{
	for (int i = 0; i < V8_LINE_SCRIPTS; i++)
		free(c->script[i].ends);
	memset(c, 0, sizeof(*c));
}
