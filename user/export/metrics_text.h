/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_text.h: the exposition text's pieces, for the files that render
 * families: a formatted line, a family's HELP and TYPE, a family of one
 * series, seconds from nanoseconds. Each returns 0, or -1 when memory ran
 * out (or a line passed 512 bytes). */
#ifndef RINGTRACE_METRICS_TEXT_H
#define RINGTRACE_METRICS_TEXT_H

#include <stdint.h>

#include "lib/byte_buffer.h"

int metrics_put(struct byte_buffer *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int metrics_family(struct byte_buffer *out, const char *name, const char *type, const char *help);
/* A gauge of one series, or a counter: value printed with fmt. */
int metrics_single(struct byte_buffer *out, const char *name, const char *type, const char *help,
		   const char *fmt, uint64_t value);
int metrics_seconds(struct byte_buffer *out, uint64_t ns);

#endif
