/* SPDX-License-Identifier: GPL-2.0-only */
/* private_dir.h: a directory of this user's alone (a cache's), opened one
 * component at a time with none a symlink and the missing ones made 0700,
 * and whether a file found in it is this user's alone. */
#ifndef RINGTRACE_PRIVATE_DIR_H
#define RINGTRACE_PRIVATE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Whether st is something of this user's that no one else may write. */
bool private_dir_ours_alone(const struct stat *st);

/* Why a directory cannot be used. */
enum private_dir_refusal {
	PRIVATE_DIR_OPEN_FAILED, /* errno says why (ELOOP, ENOTDIR: a symlink on the way) */
	PRIVATE_DIR_GOES_UP,     /* a component is `..` */
	PRIVATE_DIR_NOT_OURS,    /* another's, or others may write to it */
};

/* Opens path (O_DIRECTORY, O_CLOEXEC), making each missing component 0700,
 * refusing `..`, a symlink on the way, and a directory that is not this
 * user's alone; the descriptor, or -1 with *why set (and errno, for
 * PRIVATE_DIR_OPEN_FAILED). */
int private_dir_open(const char *path, enum private_dir_refusal *why);

#endif
