/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir.h: creates the recording's output directory and the files in it
 * without following symlinks: directory 0700, files 0600, never reused blindly. */
#ifndef RINGTRACE_OUTPUT_DIR_H
#define RINGTRACE_OUTPUT_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Creates path (mode 0700) and returns an fd on it. An existing path is an
 * error unless force, and then only if it is a real directory owned by the
 * caller; its old data files are removed. -1 with err set on failure. */
int output_dir_create(const char *path, bool force, char *err, size_t errlen);

/* Creates the directory dirfd/name (0700; an existing one is an error) and
 * returns an fd on it, not through a symlink; -1 with err set. */
int output_subdir_create(int dirfd, const char *dirpath, const char *name, char *err,
			 size_t errlen);

/* Creates dirfd/name exclusively, mode 0600, not through a symlink; returns
 * the fd (write-only, close-on-exec) or -1 with err set. */
int output_file_create(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen);

#endif
