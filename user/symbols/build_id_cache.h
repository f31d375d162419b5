/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id_cache.h: copies, inside the recording (DIR/.build-id/xx/yyyy), of
 * the binaries only a container sees (a process in another mount namespace),
 * taken at record time through the mapped inode (/proc/PID/map_files) or the
 * container's root, and only if it carries the build-id recorded; a file a
 * user owns is kept for its namespace alone (DIR/.build-id-ns/INODE/xx/yyyy). */
#ifndef RINGTRACE_BUILD_ID_CACHE_H
#define RINGTRACE_BUILD_ID_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "symbols/held_copies.h"
#include "symbols/unlinked_copies.h"
#include "sys/file_copies.h"

#define BUILD_ID_CACHE_DIR ".build-id"
/* Copies of files a user owns, by the mount namespace whose processes mapped
 * them: a copy under a build-id stands for every binary carrying it, and a
 * user can give any file any build-id (a host binary's, say one a root
 * process ran before an upgrade): such a copy may name only the frames of
 * that namespace's processes, which the recording's NAMESPACES records say. */
#define BUILD_ID_NS_DIR ".build-id-ns"

/* Processes whose mount namespace is remembered between their mappings,
 * and for how long (a process may unshare its namespace, which no record
 * tells: a program's start maps its libraries within a few ms). */
#define MNT_NS_SLOTS 64
#define MNT_NS_KEPT_NS (50 * 1000000ull)

struct build_id_cache {
	int dirfd;            /* the recording's directory */
	uint64_t own_mnt_ns;  /* the inode of ours (/proc/self/ns/mnt) */
	struct hash_map seen; /* copies handled (made, not needed, refused), by name */
	struct hash_map told; /* pid -> mount namespace its NAMESPACES record gave */
	/* the mount namespaces read for the last processes' mappings, by pid
	 * (a slot each, pid % MNT_NS_SLOTS; pid 0: none), and when */
	struct {
		uint32_t pid;
		uint64_t ino, read_ns;
	} mnt_ns[MNT_NS_SLOTS];
	struct file_copies *copies; /* what copies them, off the caller's thread */
	/* our own namespace's files, held until unlinked (then copied) */
	struct unlinked_copies unlinked;
	/* a recording of some processes: copies held until a sample touches
	 * them (set by the caller, freed here), or NULL: made as they come */
	struct held_copies *held;
};

/* dirfd is the recording's directory (kept open by the caller); copies
 * makes the copies in it. */
void build_id_cache_init(struct build_id_cache *c, int dirfd, struct file_copies *copies);
/* Has the file of m (a MMAP2 record of m->pid carrying its build-id)
 * under that build-id, if m->pid lives in another mount namespace and the
 * build-id is new; one of our own namespace is held open by fd, and copied
 * so once deleted or replaced (unlinked_copies.h). fd: the mapped file, opened by the caller with
 * safe_open_mapping(), or -1 to open it here the same way. The file is copied
 * (on the copies' thread, within their budget) through that fd only, and only
 * if its build-id is the recorded one: a path swapped for a symlink, or for
 * another file, is never copied. */
void build_id_cache_add(struct build_id_cache *c, const struct perf_mmap *m, int fd);
/* A FORK (of child pid), EXIT or exec (COMM) of pid was seen: its mount
 * namespace is read again at its next mapping (a pid reused is another
 * process; one exec'd may be a setuid program a namespace tool unshared). */
void build_id_cache_task_changed(struct build_id_cache *c, uint32_t pid);
/* Whether the process of m (an executable mapping of a file) lives in a
 * mount namespace not ours that no NAMESPACES record has given for it yet:
 * then 1, with its namespaces in n, remembered as given; else 0. Report
 * looks for the copies kept per namespace by it. */
int build_id_cache_new_namespace(struct build_id_cache *c, const struct perf_mmap *m,
				 struct perf_namespaces *n);
void build_id_cache_free(struct build_id_cache *c);

#endif
