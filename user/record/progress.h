/* SPDX-License-Identifier: GPL-2.0-only */
/* progress.h: record's live progress on a terminal: elapsed time, samples/s,
 * samples, lost, bytes, once a second, one line rewritten in place. */
#ifndef RINGTRACE_PROGRESS_H
#define RINGTRACE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct progress {
	FILE *out;             /* NULL: off */
	double start, last;    /* monotonic_seconds() */
	uint64_t last_samples;
	bool shown;            /* a line is on the terminal */
};

/* What the recording has come to. */
struct progress_counts {
	uint64_t samples, lost, bytes;
};

/* On if out is a terminal and not quiet; start is when the recording began. */
void progress_init(struct progress *p, FILE *out, bool quiet);
/* Whether a second has passed since the last line (then progress_show). */
bool progress_due(struct progress *p);
/* Rewrites the line with c. */
void progress_show(struct progress *p, const struct progress_counts *c);
/* Erases the line, before the summary. */
void progress_clear(struct progress *p);

#endif
