/* SPDX-License-Identifier: GPL-2.0-only */
/* jit_maps.h: copies into the recording (DIR/perf-PID.map) the symbol maps
 * JITs write for their code (/tmp/perf-PID.map, perf's format), which are
 * gone or another process's once the process exits. */
#ifndef RINGTRACE_JIT_MAPS_H
#define RINGTRACE_JIT_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "sys/file_copies.h"

/* A map larger than this is not copied (counted too_large in the copies'
 * totals). */
#define JIT_MAP_MAX_BYTES (256u << 20)

struct jit_maps {
	int dirfd;            /* the recording's directory */
	uint64_t own_mnt_ns;  /* the inode of our mount namespace (proc_mnt_ns) */
	struct hash_map pids; /* pid -> struct jit_process: processes with JIT code */
	struct file_copies *copies; /* what copies them, off the caller's thread */
};

/* dirfd is the recording's directory (kept open by the caller); copies
 * makes the copies in it. */
void jit_maps_init(struct jit_maps *j, int dirfd, struct file_copies *copies);
/* Notes the process of an MMAP2 (decoded) if it maps anonymous executable
 * memory ("//anon"): a JIT's code. */
void jit_maps_note_mmap(struct jit_maps *j, const struct perf_mmap *m);
/* The same for each MMAP2 among the len bytes of side-band records at recs. */
void jit_maps_note_records(struct jit_maps *j, const void *recs, size_t len);
/* Has the map of pid, if it was noted, copied into DIR/perf-PID.map (on the
 * copies' thread, within their budget, holes kept): read as
 * its own process sees /tmp/perf-PID.map (inside a container's root, by the
 * pid its namespace gives it), only if it is a regular file reached through
 * no symlink and owned by the process's user. */
void jit_maps_copy(struct jit_maps *j, uint32_t pid);
/* Copies the map of every process noted and not copied as it exited (at the
 * end of a recording). */
void jit_maps_copy_all(struct jit_maps *j);
void jit_maps_free(struct jit_maps *j);

#endif
