/* SPDX-License-Identifier: GPL-2.0-only */
/* held_copies.h: the copies of containers' binaries a recording of some
 * processes (-- CMD, -p, -t, -G) makes only once a sample touches them, as
 * perf's build-id pass keeps only the binaries its samples hit: the file is
 * held open (the mapped inode, checked by build_id_cache) with the address
 * ranges it is mapped at, and handed to file_copies at the first sample
 * whose address or user callchain lies in one of them. A sample may be
 * drained before the mapping it lies in (side-band and samples come through
 * rings of their own), so the pages of user addresses no range took are
 * remembered, and a range mapped over one is touched at once (a stack
 * copy's words are not: most are data, and -g copies few stacks); past
 * HELD_PAGES_MAX of them, or HELD_FILES_MAX files held, files are copied as
 * they come (today's -a). What no sample touched is closed at the end,
 * uncopied, and counted. */
#ifndef RINGTRACE_HELD_COPIES_H
#define RINGTRACE_HELD_COPIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/file_copies.h"

/* Files held open at most (and an eighth of RLIMIT_NOFILE), and user pages
 * remembered at most. */
#define HELD_FILES_MAX 512
#define HELD_PAGES_MAX 32768

struct held_copies;

struct held_copies_totals {
	uint64_t held;            /* files held for a sample to touch */
	uint64_t touched;         /* of them, touched: copied */
	uint64_t untouched;       /* closed at the end, not copied... */
	uint64_t untouched_bytes; /* ...of this many bytes */
	uint64_t at_once;         /* copied as they came: over a bound */
};

/* Copies with copies; NULL if memory ran out. */
struct held_copies *held_copies_new(struct file_copies *copies);
/* Holds fd (taken) for a copy to name (file_copies_submit's, never over an
 * older copy), mapped at [start, end); a name held before gets the range
 * and fd is closed. Copied now if a sample touched the range already, or
 * over a bound. */
void held_copies_hold(struct held_copies *h, int fd, const char *name, uint64_t start,
		      uint64_t end);
/* A name held: [start, end) is one more range it is mapped at (another
 * process's), true; false if no file is held by that name. */
bool held_copies_add_range(struct held_copies *h, const char *name, uint64_t start, uint64_t end);
/* A sample's address and callchain (nr entries; kernel addresses and
 * perf's context markers are passed over), and the stack copied with it
 * (-g's, for frames in a file whose table was not loaded yet: its words
 * touch what they point into, as the return addresses among them would). */
void held_copies_touch(struct held_copies *h, uint64_t ip, const uint64_t *chain, uint64_t nr,
		       const uint8_t *stack, uint64_t stack_size);
/* The end: files no sample touched are closed uncopied. */
void held_copies_finish(struct held_copies *h);
void held_copies_get_totals(struct held_copies *h, struct held_copies_totals *t);
void held_copies_free(struct held_copies *h);

#endif
