/* SPDX-License-Identifier: GPL-2.0-only */
/* file_copies.h: copies into the recording of files a local user controls
 * (containers' binaries, JITs' symbol maps) and of what it learned of them
 * (Python processes' maps), made on a thread of their own,
 * never the drain's, within one byte budget for the whole recording: holes
 * are kept (a sparse file costs its data alone), and a copy that would pass
 * the budget is refused and counted. */
#ifndef RINGTRACE_FILE_COPIES_H
#define RINGTRACE_FILE_COPIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/dir_link.h"

struct file_copies;

struct file_copies_totals {
	uint64_t copied, bytes;        /* files copied whole, and their data */
	uint64_t over_budget, refused_bytes; /* refused: the budget would pass */
	uint64_t too_large;            /* refused: over its kind's size limit */
	uint64_t failed;               /* refused: not a regular file (a FIFO, a
					  symlink), not its owner's; a write failed */
	uint64_t budget;
	uint64_t removed;              /* copies removed again (file_copies_remove) */
};

/* Copies into the directory dirfd (kept open by the caller), budget bytes of
 * data in all; NULL if memory ran out. Copies queued before the thread is
 * started wait for it. */
struct file_copies *file_copies_new(int dirfd, uint64_t budget);
/* How many files a holder may keep open until it copies them: want, but an
 * eighth of this process's RLIMIT_NOFILE at most (the rest for its events,
 * rings and files: record does not raise the limit, which its workload would
 * inherit). */
size_t file_copies_held_max(size_t want);
/* Starts the thread that copies (once the caller's capabilities are dropped:
 * it needs none, reading only the files it is given open). 0, or an errno. */
int file_copies_start(struct file_copies *c);

/* Queues a copy of the open file in (taken: closed once copied) to
 * dirfd/name, made 0600 through no symlink as name.tmp and renamed onto name
 * once whole (over an older copy if replace, else only where name does not
 * exist yet). 0, or -ENOMEM (in closed) if memory ran out, -ENAMETOOLONG if name
 * is too long. */
int file_copies_submit(struct file_copies *c, int in, const char *name, bool replace);

/* The same (never over an older copy), queued before every copy waiting:
 * a file no name links any more, whose names a report wants soon; with
 * nr_ranges, only those [from, to) pairs of in's bytes (ranges: 2 *
 * nr_ranges numbers, copied here), the rest of the copy a hole. */
int file_copies_submit_first(struct file_copies *c, int in, const char *name,
			     const uint64_t *ranges, size_t nr_ranges);

/* Queues writing the len bytes at data (taken: freed once written) to
 * dirfd/name, made as a copy is and within the same budget. 0, or -ENOMEM
 * or -ENAMETOOLONG (data freed). */
int file_copies_submit_bytes(struct file_copies *c, void *data, size_t len, const char *name,
			     bool replace);

/* Queues adding the len bytes at data (taken: freed once written) at the
 * end of dirfd/name, a file made by an earlier copy (made now, 0600, if
 * there is none), within the same budget. 0, or -ENOMEM or -ENAMETOOLONG
 * (data freed). */
int file_copies_append_bytes(struct file_copies *c, void *data, size_t len, const char *name);

/* Queues removing dirfd/name, a copy queued before, whose bytes (bytes
 * at most) are then given back to the budget: a flight recording's copies
 * kept within a budget of their own. 0, or -ENOMEM or -ENAMETOOLONG. */
int file_copies_remove(struct file_copies *c, const char *name, uint64_t bytes);

/* Links every copy made so far (and whatever else is in dirfd of the
 * constructor: Python maps written there) into the directory dirfd (of the
 * same file system), after the copies queued before: queued (dirfd dup'ed)
 * while the thread runs, done now once it has ended or before it starts. 0,
 * or -errno. */
int file_copies_link_into(struct file_copies *c, int dirfd);
/* Files linked so far, and those that could not be. */
void file_copies_get_links(struct file_copies *c, struct dir_link_totals *t);

/* Counts a file its caller refused to copy (c may be NULL): over the size
 * limit of its kind if too_large, else not one to read (safe_open refused
 * it: a FIFO, a symlink; or not its owner's), with the failed copies. */
void file_copies_refused(struct file_copies *c, bool too_large);

/* Waits for the copies queued (each one within the budget, so the wait is
 * bounded), then ends the thread; copies none if it was never started. */
void file_copies_finish(struct file_copies *c);

void file_copies_get_totals(struct file_copies *c, struct file_copies_totals *t);

/* Ends the thread at once (the copy under way is given up), frees c. */
void file_copies_free(struct file_copies *c);

#endif
