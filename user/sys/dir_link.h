/* SPDX-License-Identifier: GPL-2.0-only */
/* dir_link.h: a directory's tree of files made visible in another directory
 * of the same file system by hard links: each rotated output of a recording
 * holds the copies its samples need, their data on disk once. */
#ifndef RINGTRACE_DIR_LINK_H
#define RINGTRACE_DIR_LINK_H

#include <stdint.h>

/* Directories below the top one followed at most: a copy's name is at most
 * .build-id-ns/NS/.build-id/xx/rest (4). */
#define DIR_LINK_MAX_DEPTH 6

struct dir_link_totals {
	uint64_t linked;  /* files linked (or there already) */
	uint64_t failed;  /* files not linked: another file system, a limit */
};

/* Links every regular file below from into to under the same relative name
 * (the directories on the way made 0700), never through a symlink, skipping
 * names ending in ".tmp" (a copy under way) and names there already. Adds to
 * *t. 0, or -errno when from cannot be listed. */
int dir_link_tree(int from, int to, struct dir_link_totals *t);

#endif
