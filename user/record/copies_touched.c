/* SPDX-License-Identifier: GPL-2.0-only */
/* copies_touched.c: a recording of some processes copies a container's
 * binary only once a sample touches it (symbols/held_copies.h): the copies
 * held from the start, and each sample's addresses handed to them, read by
 * the layout of its event. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "record/session.h"
#include "symbols/held_copies.h"

int session_hold_copies(struct session *s)
{
	unsigned int nr = s->opts->nr_events;

	s->held_attrs = calloc(nr, sizeof(*s->held_attrs));
	s->build_ids.held = s->held_attrs ? held_copies_new(s->copies) : NULL;
	if (!s->build_ids.held)
		return -ENOMEM;
	for (unsigned int i = 0; i < nr; i++)
		recording_event_attr(&s->held_attrs[i], &s->file_events[i]);
	return 0;
}

void session_touch_copies(struct session *s, const void *rec, size_t size)
{
	const struct perf_event_header *h = rec;
	struct perf_sample sample;
	uint64_t id;
	unsigned int i;

	if (h->type != PERF_RECORD_SAMPLE || size < sizeof(*h) + sizeof(id))
		return;
	/* PERF_SAMPLE_IDENTIFIER: the first field; its event's number + 1 in
	 * its low byte (recording_event_id) */
	memcpy(&id, h + 1, sizeof(id));
	i = (unsigned int)(id & 0xff) - 1;
	if (i >= s->opts->nr_events || id != recording_event_id(s->id_base, i) ||
	    perf_sample_decode_regs(h, s->held_attrs[i].sample_type, s->held_attrs[i].sample_regs_user,
				    &sample))
		return;
	held_copies_touch(s->build_ids.held, sample.ip, sample.callchain, sample.nr_callchain,
			  sample.stack_user, sample.stack_dyn_size);
}
