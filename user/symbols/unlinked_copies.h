/* SPDX-License-Identifier: GPL-2.0-only */
/* unlinked_copies.h: the files processes of our own mount namespace map, held
 * open by device and inode (the mapped inode), so that one deleted or replaced
 * after it was mapped is copied into the recording (DIR/.build-id/xx/yyyy)
 * before its names are lost; a bounded number held, least recently mapped let
 * go first. */
#ifndef RINGTRACE_UNLINKED_COPIES_H
#define RINGTRACE_UNLINKED_COPIES_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "sys/file_copies.h"

/* Files held open at most (a descriptor each; at most an eighth of
 * RLIMIT_NOFILE), and the largest copied. */
#define UNLINKED_HELD_MAX 256
#define UNLINKED_MAX_FILE ((int64_t)256 << 20)
/* A flight recording's copies kept at most (unlinked_copies_keep_within). */
#define UNLINKED_KEPT_MAX 4096
/* With only_met, a file over this many bytes that no walk met yet is not
 * held when mapped (closing the last descriptor of a deleted one frees its
 * pages: work for the closer), only its mapping remembered, at most
 * UNLINKED_PENDING_MAX of them, the oldest forgotten first; it is held once
 * a walk met it and a process still maps it. */
#define UNLINKED_HOLD_UNMET_BYTES ((int64_t)1 << 20)
#define UNLINKED_PENDING_MAX 256

struct unlinked_copies_totals {
	uint64_t held;         /* files held open since the start */
	uint64_t copied;       /* ...copied once unlinked (queued to the copies) */
	uint64_t let_go;       /* ...let go still linked: room for a newer one */
	uint64_t not_trusted;  /* ...unlinked, not copied: a user's (its build-id could
				  be forged to stand for another binary) */
	uint64_t too_large;    /* ...unlinked, not copied: over UNLINKED_MAX_FILE (or the budget) */
	uint64_t not_elf;      /* ...unlinked, not copied: no ELF headers to read */
	uint64_t not_met;      /* ...unlinked, not copied: no sample met it (only_met) */
	uint64_t held_late;    /* large files held once a walk met them (only_met) */
	uint64_t never_held;   /* ...and large files forgotten before one did */
	uint64_t removed, removed_bytes; /* copies removed again: room for newer ones */
};

/* Whether a sample may have met the file (major, minor, inode): false only
 * when none did (the in-kernel unwinder's knowledge). */
typedef bool (*unlinked_met_fn)(void *ctx, uint64_t maj, uint64_t min, uint64_t ino);

/* A copy a flight recording keeps, oldest first. */
struct kept_copy {
	char name[96];
	uint64_t bytes;
};

struct pending_hold;

struct unlinked_copies {
	int dirfd;                  /* the recording's directory */
	struct file_copies *copies; /* what copies them */
	struct hash_map held;       /* (major, minor, inode) -> struct held_file */
	/* the held files' inodes watched for a change of their link count
	 * (IN_ATTRIB: an unlink, a rename over one), so that a check reads the
	 * changes, not a stat of every file; those no watch could be put on
	 * (no inotify, no room, not readable once the capabilities are
	 * dropped) are stat'ed at every check */
	int inotify_fd;
	struct hash_map watched;    /* watch descriptor -> struct held_file */
	uint32_t unwatched;
	struct hash_map copied;     /* DIR-relative names copied: once each */
	uint64_t clock;             /* of the last mappings, for the least recent */
	uint32_t max_held;
	/* a flight recording's copies, within kept_budget bytes (0: every copy
	 * stays, within the recording's copy budget): a ring, oldest first */
	struct kept_copy *kept;
	uint32_t kept_head, nr_kept;
	uint64_t kept_bytes, kept_budget;
	struct unlinked_copies_totals totals;
	unlinked_met_fn met; /* NULL: every file unlinked is copied */
	void *met_ctx;
	/* large files mapped that no walk met yet (only_met), oldest first */
	struct pending_hold *pending;
	uint32_t nr_pending;
};

void unlinked_copies_init(struct unlinked_copies *u, int dirfd, struct file_copies *copies);
/* A flight recording (which runs for ever) keeps its copies within bytes
 * and UNLINKED_KEPT_MAX files: the oldest removed first (their names then
 * lost, for the samples of theirs its rings may still hold); copies (not
 * NULL) makes them from then on: a budget and a thread of their own. */
void unlinked_copies_keep_within(struct unlinked_copies *u, struct file_copies *copies,
				 uint64_t bytes);
/* From now on a file unlinked is copied only if met says a sample may have
 * met it (the others counted, not_met): names no sample will ask for. */
void unlinked_copies_only_met(struct unlinked_copies *u, unlinked_met_fn met, void *ctx);
/* m (an executable mapping of a file of our mount namespace, its build-id
 * filled) was mapped: fd, the mapped file opened safely (by the mapping, or
 * its path proved that inode), is held (a descriptor of its own), or with
 * fd -1 a file held already counts as mapped now. One unlinked already is
 * copied at once. */
void unlinked_copies_note(struct unlinked_copies *u, const struct perf_mmap *m, int fd);
/* Each file held that no name links any more (deleted, or replaced by a
 * rename over it) is copied and let go; each large file a walk met since it
 * was mapped is held, when a process still maps it. */
void unlinked_copies_check(struct unlinked_copies *u);
void unlinked_copies_get_totals(const struct unlinked_copies *u, struct unlinked_copies_totals *t);
/* Closes the files held (none checked: unlinked_copies_check first). */
void unlinked_copies_free(struct unlinked_copies *u);

#endif
