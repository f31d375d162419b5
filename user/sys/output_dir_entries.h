/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir_entries.h: which entries of an output directory are ringtrace's,
 * and their removal, as output_dir.c (a directory taken for a recording, the
 * one it replaces set aside) and output_dir_entries.c share them. */
#ifndef RINGTRACE_OUTPUT_DIR_ENTRIES_H
#define RINGTRACE_OUTPUT_DIR_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>

#include "sys/output_dir.h"

#define BUILD_ID_DIR ".build-id"
/* A user's binaries, kept per mount namespace: DIR/.build-id-ns/INODE/xx/yyyy. */
#define BUILD_ID_NS_DIR ".build-id-ns"
/* Where --force keeps the recording it replaces until the new one starts. */
#define REPLACED_DIR ".replaced"

/* perf.data's files: "data", "data.*". */
bool output_entry_is_data(const char *name);
/* A JIT's symbol map copied by a recording: perf-PID.map. */
bool output_entry_is_jit_map(const char *name);
/* Any entry a recording writes at the top of its directory. */
bool output_entry_is_ours(const char *name);
/* dirfd/name, a directory, opened without following a symlink; -1 (errno). */
int output_subdir_open(int dirfd, const char *name);
/* Removes the perf.data files ("data", "data.*"), snapshot directories, JIT
 * maps, pid and counts files a previous recording left in dirfd (path):
 * 0, or -errno with err set. */
int output_entries_clear(int dirfd, const char *path, char *err, size_t errlen);
/* Removes DIR/.build-id/xx/yyyy, the copies of containers' binaries, and
 * DIR/.build-id-ns/INODE/xx/yyyy, those of a user's: 0, or -errno. */
int output_build_ids_remove(int dirfd);

#endif
