/* SPDX-License-Identifier: GPL-2.0-only */
/* eh_frame_segment.h: where a file's .eh_frame_hdr is mapped beside its code,
 * read from its program headers: the mapping perf's DWARF unwinding of a
 * stack copy reads the unwind table through (libunwind finds the table by
 * address, in the maps the recording names), which the kernel reports only
 * with mmap_data. */
#ifndef RINGTRACE_EH_FRAME_SEGMENT_H
#define RINGTRACE_EH_FRAME_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_record.h"

/* A file whose .eh_frame_hdr is in a loaded segment of its own, not its
 * executable one (as a -z separate-code link puts it): that segment's place
 * against the executable segment's. */
struct eh_frame_segment {
	bool separate;        /* false: in the executable segment, or none */
	uint64_t exec_offset; /* the executable segment's file offset, page-aligned */
	int64_t delta;        /* the segment's first page's address less the
				 executable segment's first page's */
	uint64_t offset;      /* the segment's file offset, page-aligned */
	uint64_t len;         /* its length in whole pages */
};

/* Reads g from the ELF file open as fd (its program headers alone).
 * Returns 0, or -ENOEXEC when it is no ELF file or its headers are not
 * those of one. */
int eh_frame_segment_read(int fd, struct eh_frame_segment *g);

/* The mapping of g's segment that goes with exec, a mapping of the file's
 * executable segment (its device, inode, build-id and name; read-only,
 * private). False when g has none, or exec maps another segment. */
bool eh_frame_segment_mapping(const struct eh_frame_segment *g, const struct perf_mmap *exec,
			      struct perf_mmap *out);

#endif
