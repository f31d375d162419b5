/* SPDX-License-Identifier: GPL-2.0-only */
/* mapped_build_ids.h: the build-ids of the files processes map (and where
 * their .eh_frame_hdr is mapped), read from the mapped inode itself (never
 * through a path another file could take over) and kept by device and inode,
 * for the MMAP2 records ringtrace writes. */
#ifndef RINGTRACE_MAPPED_BUILD_IDS_H
#define RINGTRACE_MAPPED_BUILD_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"

/* Files remembered at most: past it, every one forgotten at once (a file
 * mapped again is read again, never given a wrong build-id); without it a
 * fleet agent under a churn of new binaries grew by an entry per file. */
#define MAPPED_BUILD_IDS_MAX 16384

struct mapped_build_ids {
	struct hash_map by_file; /* (major, minor, inode) -> build-id, or none */
	bool eh_frame; /* ...and where its .eh_frame_hdr is mapped (read only if) */
	uint64_t forgotten; /* times every file was forgotten (too many remembered) */
};

/* eh_frame: the files' .eh_frame_hdr segments are wanted too
 * (mapped_build_ids_eh_frame_mapping; else it finds none). */
void mapped_build_ids_init(struct mapped_build_ids *t, bool eh_frame);
/* Gives m (a mapping of pid, with its device, inode, range and path) its
 * file's build-id: known for that device and inode, or read from the mapped
 * inode (/proc/PID/map_files), else from m's path inside /proc/PID/root if it
 * still is that device and inode. None (build_id_size 0) rather than a wrong
 * one. *fd: the file, left open when it was opened here, else -1. */
void mapped_build_ids_fill(struct mapped_build_ids *t, uint32_t pid, struct perf_mmap *m,
			   int *fd);
/* The mapping of the segment holding the .eh_frame_hdr of exec's file
 * (exec: an executable mapping mapped_build_ids_fill filled), when that is
 * not the executable segment itself: what perf's unwinding of a stack copy
 * reads the table through. False when there is none, or the file is not
 * known. */
bool mapped_build_ids_eh_frame_mapping(const struct mapped_build_ids *t,
				       const struct perf_mmap *exec, struct perf_mmap *out);
void mapped_build_ids_free(struct mapped_build_ids *t);

#endif
