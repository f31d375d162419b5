/* SPDX-License-Identifier: GPL-2.0-only */
/* interp_range.h: the range an interpreter's frames (CPython's, a JVM's) are
 * written in, carried in a recording as a process's anonymous executable
 * mapping named by its perf map: the range's MMAP2, and the map written. */
#ifndef RINGTRACE_INTERP_RANGE_H
#define RINGTRACE_INTERP_RANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/byte_buffer.h"

/* Appends to rec the MMAP2 of pid's range ("//anon": perf names its frames
 * from perf-PID.map), stamped sid (NULL: pid's ids at time 0): true, or
 * false without memory. */
bool interp_range_encode(struct byte_buffer *rec, uint32_t pid, const struct perf_sample_id *sid);
/* Starts map (if empty) with the line naming the marker of a walk cut
 * short, "[truncated]": false without memory. */
bool interp_map_begin(struct byte_buffer *map);
/* The longest line interp_map_line writes, with its newline. */
#define INTERP_MAP_LINE_MAX 2048
/* Appends to map the line naming [addr + start, addr + end): name, and
 * where its source is (file, line 0: none known), "name (file:line)":
 * false without memory, or if longer than INTERP_MAP_LINE_MAX. */
bool interp_map_line(struct byte_buffer *map, uint64_t addr, uint32_t start, uint32_t end,
		     const char *name, const char *file, uint32_t line);
/* Adds len bytes of map lines to dirpath/perf-PID.map (dirfd): after a
 * JIT's own map copied there already, which perf and report read both. 0,
 * or -1 with err set. */
int interp_map_append(int dirfd, const char *dirpath, uint32_t pid, const void *lines,
		      size_t len, char *err, size_t errlen);

#endif
