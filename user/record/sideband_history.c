/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband_history.c: the side-band a rotating recording has written, kept per
 * CPU for the outputs to come, without the processes long gone. */
#include "record/sideband_history.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "format/recording_layout.h"
#include "record/flight_sideband.h"

int sideband_history_init(struct sideband_history *h, unsigned int nr)
{
	memset(h, 0, sizeof(*h));
	h->recent = calloc(nr, sizeof(*h->recent));
	h->taken = calloc(nr, sizeof(*h->taken));
	h->kept = calloc(nr, sizeof(*h->kept));
	if (!h->recent || !h->taken || !h->kept) {
		sideband_history_free(h);
		return -ENOMEM;
	}
	h->nr = nr;
	return 0;
}

void sideband_history_free(struct sideband_history *h)
{
	for (unsigned int i = 0; i < h->nr; i++) {
		byte_buffer_free(&h->recent[i]);
		byte_buffer_free(&h->taken[i]);
		byte_buffer_free(&h->kept[i]);
	}
	free(h->recent);
	free(h->taken);
	free(h->kept);
	memset(h, 0, sizeof(*h));
}

void sideband_history_add(struct sideband_history *h, unsigned int slot, const void *rec,
			  size_t size)
{
	const struct perf_event_header *hd = rec;
	uint64_t time;

	if (slot >= h->nr || hd->type == PERF_RECORD_LOST || hd->type == PERF_RECORD_LOST_SAMPLES)
		return;
	if (!byte_buffer_append(&h->recent[slot], rec, size)) {
		h->dropped++;
		return;
	}
	time = recording_record_time(rec);
	if (time > h->newest)
		h->newest = time;
}

void sideband_history_cut(struct sideband_history *h)
{
	for (unsigned int i = 0; i < h->nr; i++) {
		h->taken[i] = h->recent[i];
		memset(&h->recent[i], 0, sizeof(h->recent[i]));
	}
	h->cut_newest = h->newest;
}

int sideband_history_take(struct sideband_history *h)
{
	int ret = 0;

	for (unsigned int i = 0; i < h->nr; i++) {
		struct byte_buffer *t = &h->taken[i];

		if (!t->len)
			continue;
		if (!h->kept[i].len) {
			/* the buffer itself changes hands */
			byte_buffer_free(&h->kept[i]);
			h->kept[i] = *t;
			memset(t, 0, sizeof(*t));
			continue;
		}
		if (!byte_buffer_append(&h->kept[i], t->data, t->len))
			ret = -ENOMEM;
		byte_buffer_free(t);
	}
	/* samples still on their way from the kernel's rings are not a second
	 * older than the side-band drained with them */
	if (h->cut_newest > FLIGHT_SIDEBAND_MARGIN_NS) {
		struct byte_buffer **bufs = calloc(h->nr, sizeof(*bufs));

		if (!bufs)
			return -ENOMEM;
		for (unsigned int i = 0; i < h->nr; i++)
			bufs[i] = &h->kept[i];
		if (flight_sideband_prune(bufs, h->nr, h->cut_newest - FLIGHT_SIDEBAND_MARGIN_NS) < 0)
			ret = -ENOMEM;
		free(bufs);
	}
	return ret;
}

const struct byte_buffer *sideband_history_kept(const struct sideband_history *h,
						unsigned int slot)
{
	return &h->kept[slot];
}
