/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_cache.h: compiled unwind tables kept on disk between recordings, one
 * file each, named by build-id (or device, inode, mtime and size), used only
 * for the file (device, inode, change time, size) it was compiled from,
 * within a size budget (unwind_cache_budget.c). */
#ifndef RINGTRACE_UNWIND_CACHE_H
#define RINGTRACE_UNWIND_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_maps.h"

/* The default directory of --unwind-cache (when ringtrace runs as root). */
#define UNWIND_CACHE_DEFAULT_DIR "/var/cache/ringtrace/unwind"

/* The default of --unwind-cache-size: well under the 256 MiB volume the
 * exporter's DaemonSet gives the cache (deploy/kubernetes). */
#define UNWIND_CACHE_DEFAULT_SIZE (128ULL << 20)
#define UNWIND_CACHE_DEFAULT_SIZE_TEXT "128M" /* UNWIND_CACHE_DEFAULT_SIZE in the help */
#define UNWIND_CACHE_MIN_SIZE (1ULL << 20)
#define UNWIND_CACHE_MIN_SIZE_TEXT "1M"
/* Files the directory holds at most (each scan of it is bounded by twice as
 * many names); a recording adds at most a quarter of these, and of the
 * budget's bytes, for files keyed by inode (users' files). */
#define UNWIND_CACHE_MAX_ENTRIES 4096
#define UNWIND_CACHE_SHARE_DIVISOR 4

struct unwind_cache;

/* What a recording did to the cache beyond reading it. */
struct unwind_cache_counts {
	uint64_t kept;          /* entries written */
	uint64_t evicted;       /* removed, least recently used first, for room */
	uint64_t evicted_bytes;
	uint64_t over_share;    /* not kept: past the recording's share for files keyed by inode */
	uint64_t no_room;       /* not kept: larger than the budget, or no room made */
};

/* Opens (creating what is missing, 0700) the directory path, which must be a
 * directory of this user that no one else may write to (no symlink); what
 * is written there keeps its entries within budget bytes. NULL with err set
 * if it cannot be used. */
struct unwind_cache *unwind_cache_open(const char *path, uint64_t budget, char *err,
				       size_t errlen);
void unwind_cache_close(struct unwind_cache *c);

/* The key of the ELF file fd: its name, its build-id if it has one and is
 * root's alone (not writable by group or others), else its device, inode,
 * mtime and size; and what proves a kept table that file's, which a
 * build-id (a name any copy can claim) does not: the device, inode, change
 * time and size of the file it was compiled from. 0, or -1 if fd cannot be
 * read or no path names it (a memfd, a deleted file: not kept). */
struct unwind_cache_key {
	char name[2 * 64 + 8]; /* the cache file's name */
	struct unwind_cache_source {
		uint64_t dev, ino;
		int64_t ctime_sec, ctime_nsec;
		int64_t size;
	} source;
};
int unwind_cache_key_of(int fd, struct unwind_cache_key *key);

/* The rows kept for key: 0 with *rows (the caller frees them), *nr and
 * *exec_vaddr_delta set; -1 on a miss (none, one compiled from another file
 * (of the same build-id) or another version of it, or a file that is not one
 * this user wrote and no one else could write, or whose header, size or
 * checksum is wrong: never trusted). A hit's mtime is set to now: the
 * budget evicts the least recently used. Any thread. */
int unwind_cache_load(struct unwind_cache *c, const struct unwind_cache_key *key,
		      struct rt_unwind_row **rows, uint32_t *nr, int64_t *exec_vaddr_delta);
/* Keeps rows for key (a temporary file 0600, renamed into place), room made
 * within the budget (least recently used entries removed); 0, or -1 if not
 * kept. */
int unwind_cache_store(struct unwind_cache *c, const struct unwind_cache_key *key,
		       const struct rt_unwind_row *rows, uint32_t nr, int64_t exec_vaddr_delta);
/* The counts so far. Any thread. */
void unwind_cache_counts(struct unwind_cache *c, struct unwind_cache_counts *out);

#endif
