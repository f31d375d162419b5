/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband_order.c: side-band records drained one CPU at a time, kept
 * decoded until every CPU has passed their time, then given back in time
 * order. */
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

	if (x->rec.sid.time != y->rec.sid.time)
		return x->rec.sid.time < y->rec.sid.time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The string a record points to (NULL for FORK and EXIT), and where that
 * pointer is, to aim it at a copy. */
static const char **string_of(struct perf_sideband *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP2:
		return &rec->mmap.filename;
	case PERF_RECORD_COMM:
		return &rec->comm.comm;
	default:
		return NULL;
	}
}

static size_t kept_bytes(const struct perf_sideband *rec)
{
	const char **str = string_of((struct perf_sideband *)rec);

	return sizeof(struct sideband_kept) + (str ? strlen(*str) + 1 : 0);
}

/* The kept record k as it was added: its string pointer aimed at the copy. */
static struct perf_sideband kept_record(const struct sideband_order *o,
					const struct sideband_kept *k)
{
	struct perf_sideband rec = k->rec;
	const char **str = string_of(&rec);

	if (str)
		*str = (const char *)o->strings.data + k->str_off;
	return rec;
}

/* Gives back the first n kept records (sorted), keeps the rest. */
static void give_back(struct sideband_order *o, size_t n, sideband_apply_fn apply, void *ctx)
{
	struct byte_buffer rest = { 0 };
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		struct perf_sideband rec = kept_record(o, &o->kept[i]);

		apply(ctx, &rec);
	}
	for (size_t i = n; i < o->nr; i++) {
		struct sideband_kept k = o->kept[i];
		struct perf_sideband rec = kept_record(o, &k);
		const char **str = string_of(&rec);

		k.str_off = rest.len;
		/* the rest is smaller than what held it: only an allocation
		 * failure loses the ordering, and then it is given back now */
		if (str && !byte_buffer_append(&rest, *str, strlen(*str) + 1)) {
			o->early++;
			apply(ctx, &rec);
			continue;
		}
		o->kept[kept++] = k;
	}
	byte_buffer_free(&o->strings);
	o->strings = rest;
	o->nr = kept;
}

void sideband_order_release(struct sideband_order *o, uint64_t until, sideband_apply_fn apply,
			    void *ctx)
{
	size_t n = 0;

	if (!o->nr)
		return;
	qsort(o->kept, o->nr, sizeof(o->kept[0]), by_time);
	while (n < o->nr && o->kept[n].rec.sid.time <= until)
		n++;
	if (n)
		give_back(o, n, apply, ctx);
}

uint64_t sideband_order_oldest(const struct sideband_order *o)
{
	uint64_t oldest = UINT64_MAX;

	for (size_t i = 0; i < o->nr; i++)
		if (o->kept[i].rec.sid.time < oldest)
			oldest = o->kept[i].rec.sid.time;
	return oldest;
}

static size_t bytes_kept(const struct sideband_order *o)
{
	return o->nr * sizeof(struct sideband_kept) + o->strings.len;
}

/* Room for one more: the oldest half given back when the bytes are spent. */
static bool make_room(struct sideband_order *o, size_t size, sideband_apply_fn apply, void *ctx)
{
	if (bytes_kept(o) + size > o->max_bytes && o->nr) {
		size_t half = (o->nr + 1) / 2;

		qsort(o->kept, o->nr, sizeof(o->kept[0]), by_time);
		o->early += half;
		give_back(o, half, apply, ctx);
	}
	if (bytes_kept(o) + size > o->max_bytes)
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

void sideband_order_add(struct sideband_order *o, const struct perf_sideband *rec,
			sideband_apply_fn apply, void *ctx)
{
	struct sideband_kept k = { .seq = o->seq, .rec = *rec };
	const char **str = string_of(&k.rec);

	if (!make_room(o, kept_bytes(rec), apply, ctx)) {
		o->early++;
		apply(ctx, rec);
		return;
	}
	/* after make_room, which moves what it keeps */
	k.str_off = o->strings.len;
	if (str && !byte_buffer_append(&o->strings, *str, strlen(*str) + 1)) {
		o->early++;
		apply(ctx, rec);
		return;
	}
	if (str)
		*str = NULL; /* kept_record aims it at the copy */
	o->seq++;
	o->kept[o->nr++] = k;
}

void sideband_order_free(struct sideband_order *o)
{
	byte_buffer_free(&o->strings);
	free(o->kept);
	memset(o, 0, sizeof(*o));
}
