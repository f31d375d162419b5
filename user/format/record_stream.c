/* SPDX-License-Identifier: GPL-2.0-only */
/* record_stream.c: the records of every file of a perf.data input as one
 * stream in time order: each file checked (and, if out of time order,
 * indexed and sorted), then k-way merged; read in windows, interruptible. */
#include "format/record_stream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/input_file.h"
#include "format/perf_record.h"
#include "lib/log.h"
#include "lib/sorted_count.h"
#include "sys/interrupt.h"

/* How far ahead of the record being checked its file is fetched. */
#define STREAM_PREFETCH 1024
/* perf reads a directory's files in turns, from each file records until
 * they make 2 MiB, then from the next (READER_MAX_SIZE in its session.c) */
#define PERF_READER_TURN (2u << 20)

struct index_entry {
	uint64_t time;
	uint64_t offset;
};

/* One file's place in the merge. A file in time order (most are) is read
 * straight from its mapping, each record's time taken as it comes up; only
 * a file out of order gets an index of its records, sorted. */
struct file_cursor {
	const struct perf_input_file *file;
	struct perf_input_window window; /* of the merge's reading */
	uint64_t pos, end;          /* the next record; end: after the last whole one */
	uint64_t time;              /* of the record at pos */
	struct index_entry *entries; /* NULL: in order, read from pos */
	size_t nr, next;
	uint64_t *turns; /* where each of perf's reading turns but the first starts */
	size_t nr_turns;
};

struct record_stream {
	const struct perf_input *in;
	/* where every event's samples keep their time (every event puts the
	 * same fields before it), or 0: looked up by the sample's event */
	size_t sample_time_at;
	/* a sample's id needs no check (no event's sample carries one) */
	bool samples_unchecked;
	struct file_cursor *files;
	unsigned int *heap; /* file numbers, min-heap on their next record's time */
	unsigned int heap_len;
};

int record_time(const struct perf_input *in, const struct perf_event_header *rec, uint64_t *time)
{
	*time = 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		const struct perf_input_event *ev = perf_input_event_of(in, rec);

		/* only the time: the rest is checked as the sample is replayed */
		return ev ? perf_sample_time(rec, ev->attr.sample_type, time) : -EINVAL;
	}
	if (in->sample_id_all && (in->sample_id_type & PERF_SAMPLE_TIME)) {
		struct perf_sample_id sid;

		if (perf_sample_id_decode(rec, in->sample_id_type, &sid))
			return -EINVAL;
		*time = sid.time;
	}
	return 0;
}

/* The time a record sorts by: its own, or, for perf's own record types
 * (>= 64, no time), that of the record before it, keeping their place. -EINVAL
 * if it is too malformed to tell. */
static int sort_time(const struct record_stream *rs, const struct perf_event_header *rec,
		     uint64_t before, uint64_t *time)
{
	*time = before;
	if (rec->type == PERF_RECORD_SAMPLE && rs->sample_time_at) {
		if (rec->size < rs->sample_time_at + sizeof(*time))
			return -EINVAL;
		memcpy(time, (const uint8_t *)rec + rs->sample_time_at, sizeof(*time));
		return 0;
	}
	return rec->type < PERF_RECORD_USER_TYPE_START ? record_time(rs->in, rec, time) : 0;
}

/* What every event's samples share: where their time is, whether they carry an id. */
static void sample_layout(struct record_stream *rs)
{
	const struct perf_input *in = rs->in;
	const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME;
	uint64_t first = in->nr_events ? in->events[0].attr.sample_type : 0;

	rs->samples_unchecked = in->nr_events == 1 &&
				!(first & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID));
	for (unsigned int i = 1; i < in->nr_events; i++)
		if ((in->events[i].attr.sample_type & before) != (first & before))
			return;
	if (in->nr_events && (first & PERF_SAMPLE_TIME))
		rs->sample_time_at = sizeof(struct perf_event_header) +
				     8 * (!!(first & PERF_SAMPLE_IDENTIFIER) +
					  !!(first & PERF_SAMPLE_IP) + !!(first & PERF_SAMPLE_TID));
}

static int compare_entries(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The records of a file out of time order, sorted by time; its records were
 * checked already. */
static int index_file(const struct record_stream *rs, const struct perf_input_file *f,
		      struct file_cursor *fc, struct perf_input_window *w, char *err,
		      size_t errlen)
{
	uint64_t last = 0, nr = 0;

	for (uint64_t pos = fc->pos; pos < fc->end; nr++) {
		perf_input_window_at(f, w, pos);
		pos += ((const struct perf_event_header *)perf_input_file_at(f, pos))->size;
	}
	perf_input_window_end(f, w);
	fc->entries = malloc(nr * sizeof(*fc->entries));
	if (!fc->entries) {
		rt_format(err, errlen, "out of memory indexing %s", f->path);
		return -ENOMEM;
	}
	for (uint64_t pos = fc->pos; pos < fc->end;) {
		const struct perf_event_header *rec =
			(const struct perf_event_header *)perf_input_file_at(f, pos);

		if (interrupt_pending()) {
			rt_format(err, errlen, "%s: offset %llu: interrupted", f->path,
				  (unsigned long long)pos);
			return -EINTR;
		}
		perf_input_window_at(f, w, pos);
		sort_time(rs, rec, last, &last);
		fc->entries[fc->nr++] = (struct index_entry){ last, pos };
		pos += rec->size;
	}
	qsort(fc->entries, fc->nr, sizeof(*fc->entries), compare_entries);
	fc->time = fc->entries[0].time;
	return 0;
}

/* Notes that one of perf's reading turns starts at offset; -ENOMEM. */
static int add_turn(struct file_cursor *fc, uint64_t offset)
{
	uint64_t *turns = fc->nr_turns % 64 ? fc->turns
					    : realloc(fc->turns, (fc->nr_turns + 64) * sizeof(*turns));

	if (!turns)
		return -ENOMEM;
	fc->turns = turns;
	fc->turns[fc->nr_turns++] = offset;
	return 0;
}

/* Checks every record of a file (its size, its sample id, its time), finds
 * where the whole ones end, and whether they are in time order; indexes the
 * file if not. Read in windows of w, all released at the end. */
static int open_file(const struct record_stream *rs, const struct perf_input_file *f,
		     struct file_cursor *fc, struct perf_input_window *w, char *err,
		     size_t errlen)
{
	const struct perf_input *in = rs->in;
	struct perf_record_iter it;
	const struct perf_event_header *rec;
	uint64_t last = 0, first = 0, turn = 0;
	bool sorted = true, any = false;
	int r;

	perf_record_iter_init(&it, f);
	perf_input_window_at(f, w, it.pos);
	while ((r = perf_record_next(&it, &rec, err, errlen)) == 1) {
		uint64_t offset = it.pos - rec->size, t;

		if (interrupt_pending()) {
			rt_format(err, errlen, "%s: offset %llu: interrupted", f->path,
				  (unsigned long long)offset);
			return -EINTR;
		}
		perf_input_window_at(f, w, it.pos);

		if (turn >= PERF_READER_TURN) {
			if (add_turn(fc, offset)) {
				rt_format(err, errlen, "out of memory reading %s", f->path);
				return -ENOMEM;
			}
			turn = 0;
		}
		turn += rec->size;

		/* each record's place hangs on the size of the one before: fetch
		 * ahead, or every record waits for memory (a third of a report) */
		if (f->end - offset > STREAM_PREFETCH + 64) {
			__builtin_prefetch(perf_input_file_at(f, offset + STREAM_PREFETCH));
			__builtin_prefetch(perf_input_file_at(f, offset + STREAM_PREFETCH + 64));
		}

		if (!(rec->type == PERF_RECORD_SAMPLE && rs->samples_unchecked) &&
		    perf_input_check_id(in, f, offset, rec, err, errlen))
			return -EINVAL;
		/* a sample must belong to an event, whose layout it is read by */
		if ((rec->type == PERF_RECORD_SAMPLE && in->nr_events > 1 &&
		     !perf_input_event_of(in, rec)) ||
		    sort_time(rs, rec, last, &t)) {
			rt_format(err, errlen, "%s: offset %llu: malformed %s record", f->path,
				  (unsigned long long)offset,
				  perf_record_type_name(rec->type) ? perf_record_type_name(rec->type)
								   : "unknown");
			return -EINVAL;
		}
		if (!any)
			first = t;
		any = true;
		sorted &= t >= last;
		last = t;
	}
	if (r < 0)
		return r;
	if (it.truncated)
		rt_warn("%s: offset %llu: the last record is cut short (%llu bytes); ignoring it",
			f->path, (unsigned long long)it.pos,
			(unsigned long long)(f->end - it.pos));
	perf_input_window_end(f, w);
	fc->file = f;
	fc->pos = f->start;
	fc->end = any ? it.pos : f->start;
	fc->time = first;
	r = sorted ? 0 : index_file(rs, f, fc, w, err, errlen);
	perf_input_window_end(f, w);
	return r;
}

static bool file_done(const struct file_cursor *fc)
{
	return fc->entries ? fc->next == fc->nr : fc->pos == fc->end;
}

/* Where a file's next record starts in it. */
static uint64_t next_offset(const struct file_cursor *fc)
{
	return fc->entries ? fc->entries[fc->next].offset : fc->pos;
}

/* In which of perf's reading turns of its file the next record is read. */
static size_t next_turn(const struct file_cursor *fc)
{
	return sorted_count_at_or_below(fc->turns, fc->nr_turns, sizeof(*fc->turns), 0,
					next_offset(fc));
}

/* Orders files by their next record: time; records of one time as perf
 * queues them (its queue keeps records of one time in the order read, and
 * it reads the files in turns, the header file first, then the data files
 * as their directory lists them): the one read in an earlier turn first,
 * then the file read first in a turn. */
static bool heap_less(const struct record_stream *rs, unsigned int a, unsigned int b)
{
	const struct file_cursor *fa = &rs->files[a], *fb = &rs->files[b];
	uint64_t x = fa->time, y = fb->time;

	if (x != y)
		return x < y;
	x = next_turn(fa);
	y = next_turn(fb);
	if (x != y)
		return x < y;
	x = rs->in->files[a].read_order;
	y = rs->in->files[b].read_order;
	return x != y ? x < y : a < b;
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
	sample_layout(rs);
	for (unsigned int i = 0; i < in->nr_files; i++) {
		/* checked one at a time: a window of the budget for all */
		struct perf_input_window checking;

		perf_input_window_init(&checking, 1);
		if (open_file(rs, &in->files[i], &rs->files[i], &checking, err, errlen)) {
			record_stream_close(rs);
			return NULL;
		}
		perf_input_window_init(&rs->files[i].window, in->nr_files);
		if (!file_done(&rs->files[i]))
			rs->heap[rs->heap_len++] = i;
	}
	for (unsigned int i = rs->heap_len / 2; i-- > 0;)
		sift_down(rs, i);
	return rs;
}

/* The next record of the stream, PERF_RECORD_FILL among them. */
static int next_record(struct record_stream *rs, struct stream_record *out)
{
	struct file_cursor *fc;
	unsigned int f;

	if (!rs->heap_len)
		return 0;
	if (interrupt_pending())
		return -EINTR;
	f = rs->heap[0];
	fc = &rs->files[f];
	out->file = f;
	out->time = fc->time;
	if (fc->entries) {
		out->offset = fc->entries[fc->next++].offset;
		if (fc->next < fc->nr)
			fc->time = fc->entries[fc->next].time;
		perf_input_window_at(fc->file, &fc->window, out->offset);
	} else {
		out->offset = fc->pos;
		/* as open_file: fetched ahead, or each record waits for memory */
		if (fc->end - fc->pos > STREAM_PREFETCH + 64) {
			__builtin_prefetch(perf_input_file_at(fc->file, fc->pos + STREAM_PREFETCH));
			__builtin_prefetch(perf_input_file_at(fc->file, fc->pos + STREAM_PREFETCH + 64));
		}
		fc->pos += ((const struct perf_event_header *)perf_input_file_at(fc->file, fc->pos))->size;
		perf_input_window_at(fc->file, &fc->window, fc->pos);
		if (fc->pos < fc->end) /* checked when the file was opened: cannot fail */
			sort_time(rs, (const struct perf_event_header *)perf_input_file_at(fc->file, fc->pos),
				  fc->time, &fc->time);
	}
	out->rec = (const struct perf_event_header *)perf_input_file_at(fc->file, out->offset);
	if (file_done(fc)) {
		perf_input_window_end(fc->file, &fc->window);
		rs->heap[0] = rs->heap[--rs->heap_len];
	}
	sift_down(rs, 0);
	return 1;
}

int record_stream_next(struct record_stream *rs, struct stream_record *out)
{
	int r;

	/* room a writer left between records is none */
	while ((r = next_record(rs, out)) == 1 && out->rec->type == PERF_RECORD_FILL)
		;
	return r;
}

void record_stream_close(struct record_stream *rs)
{
	if (!rs)
		return;
	if (rs->files)
		for (unsigned int i = 0; i < rs->in->nr_files; i++) {
			free(rs->files[i].entries);
			free(rs->files[i].turns);
		}
	free(rs->files);
	free(rs->heap);
	free(rs);
}
