/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband_order.c: side-band records drained one CPU at a time, kept until
 * every CPU has passed their time, then given back in time order. */
#include "record/sideband_order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void sideband_order_init(struct sideband_order *o, size_t max_bytes)
{
	memset(o, 0, sizeof(*o));
	o->max_bytes = max_bytes;
}

static int by_time(const void *a, const void *b)
{
	const struct sideband_kept *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Gives back the first n kept records (sorted), keeps the rest. */
static void give_back(struct sideband_order *o, size_t n, sideband_apply_fn apply, void *ctx)
{
	struct byte_buffer rest = { 0 };
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		apply(ctx, o->records.data + o->kept[i].off, o->kept[i].size);
	for (size_t i = n; i < o->nr; i++) {
		struct sideband_kept k = o->kept[i];
		const uint8_t *rec = o->records.data + k.off;

		k.off = rest.len;
		/* the rest is smaller than what held it: only an allocation
		 * failure loses the ordering, and then it is given back now */
		if (!byte_buffer_append(&rest, rec, k.size)) {
			o->early++;
			apply(ctx, rec, k.size);
			continue;
		}
		o->kept[kept++] = k;
	}
	byte_buffer_free(&o->records);
	o->records = rest;
	o->nr = kept;
}

void sideband_order_release(struct sideband_order *o, uint64_t until, sideband_apply_fn apply,
			    void *ctx)
{
	size_t n = 0;

	if (!o->nr)
		return;
	qsort(o->kept, o->nr, sizeof(o->kept[0]), by_time);
	while (n < o->nr && o->kept[n].time <= until)
		n++;
	if (n)
		give_back(o, n, apply, ctx);
}

/* Room for one more: the oldest half given back when the bytes are spent. */
static bool make_room(struct sideband_order *o, size_t size, sideband_apply_fn apply, void *ctx)
{
	if (o->records.len + size > o->max_bytes && o->nr) {
		size_t half = (o->nr + 1) / 2;

		qsort(o->kept, o->nr, sizeof(o->kept[0]), by_time);
		o->early += half;
		give_back(o, half, apply, ctx);
	}
	if (o->records.len + size > o->max_bytes)
		return false;
	if (o->nr == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 256;
		struct sideband_kept *grown = realloc(o->kept, cap * sizeof(*grown));

		if (!grown)
			return false;
		o->kept = grown;
		o->cap = cap;
	}
	return true;
}

void sideband_order_add(struct sideband_order *o, const void *rec, size_t size, uint64_t time,
			sideband_apply_fn apply, void *ctx)
{
	size_t off;

	if (size > UINT32_MAX || !make_room(o, size, apply, ctx)) {
		o->early++;
		apply(ctx, rec, size);
		return;
	}
	/* after make_room, which moves what it keeps */
	off = o->records.len;
	if (!byte_buffer_append(&o->records, rec, size)) {
		o->early++;
		apply(ctx, rec, size);
		return;
	}
	o->kept[o->nr++] = (struct sideband_kept){ time, o->seq++, off, (uint32_t)size };
}

void sideband_order_free(struct sideband_order *o)
{
	byte_buffer_free(&o->records);
	free(o->kept);
	memset(o, 0, sizeof(*o));
}
