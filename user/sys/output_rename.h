/* SPDX-License-Identifier: GPL-2.0-only */
/* output_rename.h: an output directory given a name in its parent, or made
 * there, never over nor through an entry someone else put at that name: a
 * name taken is tried again with a suffix, then with random hex digits. */
#ifndef RINGTRACE_OUTPUT_RENAME_H
#define RINGTRACE_OUTPUT_RENAME_H

#include <stddef.h>

/* After NAME, the names NAME.1 to NAME.9 are tried (they sort after NAME
 * and before the next hundredth's NAME), then NAME.r and 16 random hex
 * digits, this many times. */
#define OUTPUT_NAME_NUMBERED 9
#define OUTPUT_NAME_RANDOM_TRIES 4

/* Renames parentfd/from (the directory fromfd is open on: anything else
 * there is left alone, -ESTALE) to parentfd/name, or, while the name tried
 * is taken by an entry of any kind (a symlink is neither followed nor
 * replaced: RENAME_NOREPLACE), to the names after it (above). The name
 * given in out; *taken counts the names found taken. 0, or -errno with err
 * naming the paths under parentpath (-EEXIST: every name tried was taken). */
int output_rename_unique(int parentfd, const char *parentpath, const char *from, int fromfd,
			 const char *name, char *out, size_t outlen, unsigned int *taken,
			 char *err, size_t errlen);

/* Creates the directory parentfd/name (0700), or, while the name is taken
 * by an entry of any kind, parentfd/name.next. and 16 random hex digits
 * (OUTPUT_NAME_RANDOM_TRIES times); opens it without following a symlink
 * and checks it is a directory of the caller's. Its name in out; *taken
 * counts the names found taken. The fd, or -errno with err set. */
int output_dir_create_unique(int parentfd, const char *parentpath, const char *name, char *out,
			     size_t outlen, unsigned int *taken, char *err, size_t errlen);

#endif
