/* SPDX-License-Identifier: GPL-2.0-only */
/* path_access.h: which directory or file of a path keeps this process out
 * (the first it may not enter, or the last it may not read), whose it is,
 * and who is kept out. */
#ifndef RINGTRACE_PATH_ACCESS_H
#define RINGTRACE_PATH_ACCESS_H

#include <stddef.h>

/* Walks path from / (a relative one from the working directory) with this
 * process's effective ids and capabilities: the first directory it may not
 * enter, or the last part, a directory it may not read (want_dir) or a file
 * it may not read, into at (absolute). 0, or -ENOENT if every part lets it
 * through; errno as it was. */
int path_access_denied_at(const char *path, int want_dir, char *at, size_t len);

/* "PATH (mode 0700, owner root, group root)": names, or numbers where the
 * ids have none here; errno as it was. */
void path_access_describe(const char *path, char *out, size_t len);

/* Who this process is to the files: "user NAME" (effective uid), or "uid N". */
void path_access_who(char *out, size_t len);

/* The cause of a refusal to open path, for a line: "AT (mode 0700, owner
 * root, group root) keeps user NAME out", AT the part path_access_denied_at
 * finds (path itself where it finds none); errno as it was. */
void path_access_keeps_out(const char *path, int want_dir, char *out, size_t len);

#endif
