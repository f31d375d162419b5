/* SPDX-License-Identifier: GPL-2.0-only */
/* header_info.h: a recording's header as perf report --header prints it:
 * the header file's sizes and offsets, then each feature it holds, in perf's
 * format and order. */
#ifndef RINGTRACE_HEADER_INFO_H
#define RINGTRACE_HEADER_INFO_H

#include <stdio.h>

#include "format/perf_data_reader.h"

/* Prints the block perf report --header (and --header-only) prints, from
 * "# ========" to "# ========" and a "#" line: captured on (the header
 * file's mtime, local time), header version, data and feature offsets,
 * hostname, os release, perf version, arch, nrcpus, cmdline, the events,
 * clockid frequency, directory data version (those present) and the
 * missing features. A feature section too short for what it should hold
 * is left out. */
void header_info_print(const struct perf_input *in, FILE *out);

#endif
