/* SPDX-License-Identifier: GPL-2.0-only */
/* tracing_data.h: the HEADER_TRACING_DATA feature: tracefs header files and the
 * formats of the recorded tracepoints, so perf script can print their fields. */
#ifndef RINGTRACE_TRACING_DATA_H
#define RINGTRACE_TRACING_DATA_H

#include "lib/byte_buffer.h"
#include "sys/tracefs.h"

/* Appends the tracing data of these tracepoints to b (in perf's trace-cmd
 * layout, version 0.6). 0, or -1 with err set. */
int tracing_data_build(struct byte_buffer *b, const struct tracepoint_name *tps, unsigned int nr,
		       char *err, size_t errlen);

#endif
