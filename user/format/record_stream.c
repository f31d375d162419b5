/* SPDX-License-Identifier: GPL-2.0-only */
/* record_stream.c: the records of every file of a perf.data input as one
 * stream in time order: each file indexed and sorted, then k-way merged. */
#include "format/record_stream.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_record.h"
#include "lib/log.h"

struct index_entry {
	uint64_t time;
	uint64_t offset;
};

struct file_index {
	struct index_entry *entries;
	size_t nr, next;
};

struct record_stream {
	const struct perf_input *in;
	struct file_index *files;
	unsigned int *heap; /* file numbers, min-heap on their next entry */
	unsigned int heap_len;
};

int record_time(const struct perf_input *in, const struct perf_event_header *rec, uint64_t *time)
{
	*time = 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		const struct perf_input_event *ev = perf_input_event_of(in, rec);

		/* only the time: the rest is checked as the sample is replayed */
		return ev ? perf_sample_time(rec, ev->attr.sample_type, time) : -1;
	}
	if (in->sample_id_all && (in->sample_id_type & PERF_SAMPLE_TIME)) {
		struct perf_sample_id sid;

		if (perf_sample_id_decode(rec, in->sample_id_type, &sid))
			return -1;
		*time = sid.time;
	}
	return 0;
}

static int compare_entries(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int index_file(const struct perf_input *in, const struct perf_input_file *f,
		      struct file_index *fi, char *err, size_t errlen)
{
	struct perf_record_iter it;
	const struct perf_event_header *rec;
	size_t cap = 0;
	uint64_t last = 0;
	bool sorted = true;
	int r;

	perf_record_iter_init(&it, f);
	while ((r = perf_record_next(&it, &rec, err, errlen)) == 1) {
		uint64_t offset = (uint64_t)((const uint8_t *)rec - f->map), t = last;

		if (perf_input_check_id(in, f, offset, rec, err, errlen))
			return -1;
		/* perf's own record types (>= 64) carry no time: keep their place */
		if (rec->type < PERF_RECORD_USER_TYPE_START && record_time(in, rec, &t)) {
			rt_format(err, errlen, "%s: offset %llu: malformed %s record", f->path,
				  (unsigned long long)offset,
				  perf_record_type_name(rec->type) ? perf_record_type_name(rec->type)
								   : "unknown");
			return -1;
		}
		if (fi->nr == cap) {
			struct index_entry *grown;

			cap = cap ? cap * 2 : 256;
			grown = realloc(fi->entries, cap * sizeof(*grown));
			if (!grown) {
				rt_format(err, errlen, "out of memory indexing %s", f->path);
				return -1;
			}
			fi->entries = grown;
		}
		fi->entries[fi->nr++] = (struct index_entry){ t, offset };
		sorted &= t >= last;
		last = t;
	}
	if (r < 0)
		return -1;
	if (it.truncated)
		rt_warn("%s: offset %llu: the last record is cut short (%llu bytes); ignoring it",
			f->path, (unsigned long long)it.pos,
			(unsigned long long)(f->end - it.pos));
	/* a file written in time order (most are) is sorted already: offsets
	 * rise; an empty file has no index, and qsort must not see NULL */
	if (fi->nr && !sorted)
		qsort(fi->entries, fi->nr, sizeof(*fi->entries), compare_entries);
	return 0;
}

/* Orders files by their next entry: time, then file number. */
static int heap_less(const struct record_stream *rs, unsigned int a, unsigned int b)
{
	const struct index_entry *x = &rs->files[a].entries[rs->files[a].next];
	const struct index_entry *y = &rs->files[b].entries[rs->files[b].next];

	if (x->time != y->time)
		return x->time < y->time;
	return a < b;
}

static void sift_down(struct record_stream *rs, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < rs->heap_len && heap_less(rs, rs->heap[l], rs->heap[m]))
			m = l;
		if (r < rs->heap_len && heap_less(rs, rs->heap[r], rs->heap[m]))
			m = r;
		if (m == i)
			return;
		t = rs->heap[i];
		rs->heap[i] = rs->heap[m];
		rs->heap[m] = t;
		i = m;
	}
}

struct record_stream *record_stream_open(const struct perf_input *in, char *err, size_t errlen)
{
	struct record_stream *rs = calloc(1, sizeof(*rs));

	if (rs) {
		rs->in = in;
		rs->files = calloc(in->nr_files, sizeof(*rs->files));
		rs->heap = calloc(in->nr_files, sizeof(*rs->heap));
	}
	if (!rs || !rs->files || !rs->heap) {
		rt_format(err, errlen, "out of memory");
		record_stream_close(rs);
		return NULL;
	}
	for (unsigned int i = 0; i < in->nr_files; i++) {
		if (index_file(in, &in->files[i], &rs->files[i], err, errlen)) {
			record_stream_close(rs);
			return NULL;
		}
		if (rs->files[i].nr)
			rs->heap[rs->heap_len++] = i;
	}
	for (unsigned int i = rs->heap_len / 2; i-- > 0;)
		sift_down(rs, i);
	return rs;
}

int record_stream_next(struct record_stream *rs, struct stream_record *out)
{
	struct file_index *fi;
	const struct index_entry *e;
	unsigned int f;

	if (!rs->heap_len)
		return 0;
	f = rs->heap[0];
	fi = &rs->files[f];
	e = &fi->entries[fi->next++];
	out->file = f;
	out->offset = e->offset;
	out->time = e->time;
	out->rec = (const struct perf_event_header *)(rs->in->files[f].map + e->offset);
	if (fi->next == fi->nr)
		rs->heap[0] = rs->heap[--rs->heap_len];
	sift_down(rs, 0);
	return 1;
}

void record_stream_close(struct record_stream *rs)
{
	if (!rs)
		return;
	if (rs->files)
		for (unsigned int i = 0; i < rs->in->nr_files; i++)
			free(rs->files[i].entries);
	free(rs->files);
	free(rs->heap);
	free(rs);
}
