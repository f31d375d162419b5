/* SPDX-License-Identifier: GPL-2.0-only */
/* progress.c: record's live progress on a terminal: elapsed time, samples/s,
 * samples, lost, bytes, once a second, one line rewritten in place. */
#include "record/progress.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "lib/monotonic.h"

void progress_init(struct progress *p, FILE *out, bool quiet)
{
	memset(p, 0, sizeof(*p));
	if (quiet || !isatty(fileno(out)))
		return;
	p->out = out;
	p->start = p->last = monotonic_seconds();
}

bool progress_due(struct progress *p)
{
	return p->out && monotonic_seconds() - p->last >= 1.0;
}

void progress_show(struct progress *p, const struct progress_counts *c)
{
	double now, since_last;

	if (!p->out)
		return;
	now = monotonic_seconds();
	since_last = now - p->last;
	/* \r to the line's start, \033[K erases what a longer line left */
	fprintf(p->out, "\rringtrace: %.0f s, %.0f samples/s, %" PRIu64 " samples, %" PRIu64
		" lost, %.1f MiB\033[K",
		now - p->start,
		since_last > 0 && c->samples >= p->last_samples
			? (double)(c->samples - p->last_samples) / since_last : 0.0,
		c->samples, c->lost, (double)c->bytes / (1024.0 * 1024.0));
	fflush(p->out);
	p->last = now;
	p->last_samples = c->samples;
	p->shown = true;
}

void progress_clear(struct progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = false;
}
