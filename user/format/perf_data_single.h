/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_single.h: a recording written again as one perf.data file (the
 * layout perf record writes without --threads), which tools that read no
 * directory (Hotspot's perfparser, perf inject) read. */
#ifndef RINGTRACE_PERF_DATA_SINGLE_H
#define RINGTRACE_PERF_DATA_SINGLE_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf_data_reader.h"

struct perf_data_single_totals {
	uint64_t records; /* in the file's data section */
	uint64_t bytes;   /* of the file */
};

/* Writes in (a directory, or a file) to fd as one file: the header's attrs
 * and sample ids, every record of every file in time order (as perf script
 * reads them) in one data section, and the header's features but the
 * directory format's. 0, or -errno with err naming the input and offset of a
 * malformed record, or the write that failed. */
int perf_data_write_single(const struct perf_input *in, int fd,
			   struct perf_data_single_totals *totals, char *err, size_t errlen);

#endif
