/* SPDX-License-Identifier: GPL-2.0-only */
/* format_check.h: whether libtraceevent parses a tracepoint format, and
 * prints a record of zeros by it, without crashing: tried in a child process. */
#ifndef RINGTRACE_FORMAT_CHECK_H
#define RINGTRACE_FORMAT_CHECK_H

#include <stdbool.h>

#include "format/tracing_data.h"

/* A tracepoint's record is a sample's PERF_SAMPLE_RAW, inside a record of at
 * most 64 KiB: a fixed field must lie below that. */
#define FORMAT_CHECK_MAX_RAW_END 65536u
/* What libtraceevent may read of a record: fixed fields below 64 KiB, dynamic
 * data at a 16-bit offset (from a field's end for __rel_loc) of 16-bit length,
 * a string on to its NUL. A record is printed from this many zeroed bytes. */
#define FORMAT_CHECK_SCRATCH_SIZE (4 * FORMAT_CHECK_MAX_RAW_END)

/* tep_parse_format of text into tep, once what libtraceevent's parser keeps
 * between parses is cleared: two static flags that __print_flags and
 * __print_symbolic set for the field their first argument names, left set
 * when it names none, which make the next parse that names a field missing
 * dereference NULL (libtraceevent 1.7). Every format is parsed through it;
 * non-zero if the parse failed, or the clearing did (memory). */
struct tep_handle;
struct tep_event;
int format_parse(struct tep_handle *tep, struct tep_event **ev, const char *text, size_t len,
		 const char *system);

/* Whether t (of the tracing data c) is safe to give libtraceevent: false if
 * it crashed or hung the process that tried it, or none could be started.
 * Verdicts are kept by a hash of the format: each distinct one is tried once. */
bool format_check_safe(const struct tracing_data_contents *c, const struct tracing_data_text *t);

#endif
