/* SPDX-License-Identifier: GPL-2.0-only */
/* tracing_data.h: the HEADER_TRACING_DATA feature: tracefs header files and the
 * formats of the recorded tracepoints, so perf script can print their fields. */
#ifndef RINGTRACE_TRACING_DATA_H
#define RINGTRACE_TRACING_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"
#include "sys/tracefs.h"

/* One event the tracing data describes: a tracepoint whose format is read
 * from tracefs, or an event of ringtrace's own with its format's text. */
struct tracing_data_event {
	const char *system;
	const char *name;
	const char *format; /* NULL: tracefs' events/SYSTEM/NAME/format */
	size_t format_len;
};

/* Appends the tracing data of these events to b (in perf's trace-cmd
 * layout, version 0.6). 0, or -errno with err set. */
int tracing_data_build(struct byte_buffer *b, const struct tracing_data_event *evs,
		       unsigned int nr, char *err, size_t errlen);

/* A piece of the tracing data: where it starts (from the tracing data's start) and its bytes. */
struct tracing_data_text {
	uint64_t offset;
	const char *text; /* not NUL-terminated */
	size_t len;
	const char *system; /* of an event format: its system, NUL-terminated in the data */
};

/* What perf's trace-cmd layout (version 0.5 or 0.6) holds, pointing into it. */
struct tracing_data_contents {
	bool big_endian;
	uint8_t long_size;
	uint32_t page_size;
	struct tracing_data_text header_page;
	struct tracing_data_text *events; /* the event formats, malloc'd */
	size_t nr_events;
	struct tracing_data_text printk; /* printk formats, or len 0 */
};

/* Reads the layout of data (size bytes). 0; -EINVAL with *bad_at the offset (from
 * data's start) where it is malformed; -ENOMEM. */
int tracing_data_read(const uint8_t *data, uint64_t size, struct tracing_data_contents *out,
		      uint64_t *bad_at);
void tracing_data_contents_free(struct tracing_data_contents *c);

#endif
