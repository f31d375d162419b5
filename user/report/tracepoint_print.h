/* SPDX-License-Identifier: GPL-2.0-only */
/* tracepoint_print.h: a tracepoint sample's fields as perf script prints them,
 * by its format's print fmt, through libtraceevent (what perf itself uses). */
#ifndef RINGTRACE_TRACEPOINT_PRINT_H
#define RINGTRACE_TRACEPOINT_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_data_reader.h"
#include "lib/byte_buffer.h"

struct tracepoint_printer;

/* Reads the formats of the recording's tracing data. 0, or -errno with err naming
 * the header file and the offset of a malformed layout or of a field that no
 * record can hold. A print fmt that would read where the record says (an index,
 * a length or a count from the record) is not used: such an event prints its
 * fields as name=value, as libtraceevent does for a format it cannot parse. */
int tracepoint_printer_open(struct tracepoint_printer **p, const struct perf_input *in,
			    char *err, size_t errlen);
/* Names a kernel address for %ps, %pS and %pF in print fmts (perf's
 * machine__resolve_kernel_addr): the name of the symbol holding addr, with
 * *start set to where it starts, or NULL (printed as a number). */
typedef const char *(*tracepoint_kernel_resolver)(void *ctx, uint64_t addr, uint64_t *start);
/* Resolves kernel addresses through fn(ctx, ...) from now on. */
void tracepoint_printer_resolve_kernel(struct tracepoint_printer *p, tracepoint_kernel_resolver fn,
				       void *ctx);
/* Whether the tracing data describes tracepoint id. */
bool tracepoint_printer_knows(const struct tracepoint_printer *p, uint64_t id);
/* Appends the fields of a record of tracepoint id to out, as they print
 * (nothing if unknown). 0 or -ENOMEM. */
int tracepoint_printer_print(struct tracepoint_printer *p, uint64_t id, uint32_t cpu,
			     const uint8_t *raw, uint32_t size, struct byte_buffer *out);
void tracepoint_printer_close(struct tracepoint_printer *p);

#endif
