/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_writer.h: writes a perf.data directory: the header file "data"
 * (attrs, side-band, features) and append-only per-CPU record streams. */
#ifndef RINGTRACE_PERF_DATA_WRITER_H
#define RINGTRACE_PERF_DATA_WRITER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event of the recording as the header describes it. */
struct perf_data_event {
	struct perf_event_attr attr;
	const char *name; /* the name perf report and perf script print */
	const uint64_t *ids;
	uint32_t nr_ids;
};

/* What the header file states about the recording. */
struct perf_data_header {
	const struct perf_data_event *events;
	unsigned int nr_events;
	const char *hostname;
	const char *osrelease;
	const char *arch;
	const char *version;
	uint32_t nr_cpus_available;
	uint32_t nr_cpus_online;
	int argc;
	char *const *argv;
	uint64_t clockid_res_ns; /* resolution of attr.clockid, for HEADER_CLOCKID */
	const void *tracing_data; /* HEADER_TRACING_DATA payload, if tracepoints */
	size_t tracing_data_size;
};

/* Writes the complete header file to fd: file header, attrs with their ids,
 * the data section (records, e.g. synthesized side-band) and the feature
 * sections, HEADER_DIR_FORMAT among them. Returns 0, or -errno with err set. */
int perf_data_write_header(int fd, const struct perf_data_header *hdr, const void *data,
			   size_t data_size, char *err, size_t errlen);

/* A per-CPU "data.cpuN" file: a raw stream of records, no header, appended
 * through a buffer that is written out in whole records; a record of at
 * most PERF_DATA_PAGE bytes crosses no multiple of it in the file (the room
 * before is a PERF_RECORD_FILL), so a write cut short by SIGKILL still ends
 * between records. */
struct perf_data_stream {
	int fd;
	uint8_t *buf;
	size_t len;
	size_t cap;
	uint64_t bytes_written; /* bytes that reached the file */
	uint64_t records;       /* records appended */
	int error;              /* errno of the first failed write, then sticky */
	bool no_reserve;        /* the filesystem cannot reserve room past the end */
};

/* The page whose boundaries a write is cut at. */
#define PERF_DATA_PAGE 4096u

/* Bytes kept allocated past a stream's end for a last LOST record. */
#define PERF_DATA_TAIL_RESERVE 4096

/* Takes ownership of fd. Returns 0 or -ENOMEM if the buffer cannot be allocated. */
int perf_data_stream_init(struct perf_data_stream *s, int fd, size_t bufsize);
/* Appends one record (size is its header.size). Returns 0 or -s->error. */
int perf_data_stream_append(struct perf_data_stream *s, const void *rec, size_t size);
int perf_data_stream_flush(struct perf_data_stream *s);
/* Flushes, fsyncs nothing, closes. Returns 0 or -s->error. */
int perf_data_stream_close(struct perf_data_stream *s);
/* After the stream failed (its file was cut back to its last whole record):
 * tries to write one more record there, as the room the cut freed may take
 * it; cuts the file back again if it does not. 0 if it was written, else
 * -errno (-ENOSPC if only part of it was). */
int perf_data_stream_write_after_error(struct perf_data_stream *s, const void *rec, size_t size);

#endif
