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

/* Opens path (O_DIRECTORY, O_CLOEXEC), making each missing component 0700,
 * refusing `..`, a symlink on the way, and a directory that is not this
 * user's alone; the descriptor, or -1 with why set to the cause ("goes up a
 * directory (..)", "is not a directory of this user that no one else may
 * write", or the error), to follow the directory's name in a message. */
int private_dir_open(const char *path, char *why, size_t whylen);

#endif
