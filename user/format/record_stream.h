/* SPDX-License-Identifier: GPL-2.0-only */
/* record_stream.h: the records of every file of a perf.data input as one
 * stream in time order: each file checked (and, if out of time order,
 * indexed and sorted), then k-way merged. */
#ifndef RINGTRACE_RECORD_STREAM_H
#define RINGTRACE_RECORD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf_data_reader.h"

struct stream_record {
	const struct perf_event_header *rec;
	unsigned int file; /* index into in->files */
	uint64_t offset;   /* of the record in its file */
	uint64_t time;     /* 0 for records without one (synthesized side-band) */
};

struct record_stream;

/* Checks every file (indexing those out of time order). Malformed records are
 * an error naming the file and the offset; a last record cut short is dropped
 * with a warning on stderr. */
struct record_stream *record_stream_open(const struct perf_input *in, char *err, size_t errlen);
/* The next record but PERF_RECORD_FILL: 1 with *out set, 0 when every file
 * is exhausted, -EINTR once a SIGINT or SIGTERM was caught (sys/interrupt.h;
 * record_stream_open fails with -EINTR's line too: "F: offset N:
 * interrupted"). */
int record_stream_next(struct record_stream *rs, struct stream_record *out);
void record_stream_close(struct record_stream *rs);

/* The time of a record: its sample time or its sample_id time; 0 if none.
 * -EINVAL if the record is too malformed to tell. */
int record_time(const struct perf_input *in, const struct perf_event_header *rec, uint64_t *time);

#endif
