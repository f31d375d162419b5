/* SPDX-License-Identifier: GPL-2.0-only */
/* dir_entries.h: the entries of an open directory, one name at a time. */
#ifndef RINGTRACE_DIR_ENTRIES_H
#define RINGTRACE_DIR_ENTRIES_H

/* Calls fn(dirfd, name, ctx) for every entry of the directory open as dirfd
 * but "." and "..", from its start whatever listed it before, until fn
 * returns other than 0. Returns 0 when every entry was given, fn's value
 * when it stopped (make it positive), or -errno when the directory cannot
 * be listed. The names are fn's only for the call. */
int dir_each_entry(int dirfd, int (*fn)(int dirfd, const char *name, void *ctx), void *ctx);

#endif
