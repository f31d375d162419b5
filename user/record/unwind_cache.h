/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_cache.h: compiled unwind tables kept on disk between recordings, one
 * file each, named by build-id (or device, inode, mtime and size), used only
 * for the file (device, inode, change time, size) it was compiled from. */
#ifndef RINGTRACE_UNWIND_CACHE_H
#define RINGTRACE_UNWIND_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "unwind_maps.h"

/* The default directory of --unwind-cache (when ringtrace runs as root). */
#define UNWIND_CACHE_DEFAULT_DIR "/var/cache/ringtrace/unwind"

struct unwind_cache;

/* Opens (creating what is missing, 0700) the directory path, which must be a
 * directory of this user that no one else may write to (no symlink). NULL
 * with err set if it cannot be used. */
struct unwind_cache *unwind_cache_open(const char *path, char *err, size_t errlen);
void unwind_cache_close(struct unwind_cache *c);

/* The key of the ELF file fd: its name, its build-id if it has one and is
 * root's alone (not writable by group or others), else its device, inode,
 * mtime and size; and what proves a kept table that file's, which a
 * build-id (a name any copy can claim) does not: the device, inode, change
 * time and size of the file it was compiled from. 0, or -1 if fd cannot be
 * read. */
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
 * checksum is wrong: never trusted). Any thread. */
int unwind_cache_load(struct unwind_cache *c, const struct unwind_cache_key *key,
		      struct rt_unwind_row **rows, uint32_t *nr, int64_t *exec_vaddr_delta);
/* Keeps rows for key (a temporary file 0600, renamed into place). 0 or -1. */
int unwind_cache_store(struct unwind_cache *c, const struct unwind_cache_key *key,
		       const struct rt_unwind_row *rows, uint32_t nr, int64_t exec_vaddr_delta);

#endif
