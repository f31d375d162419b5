/* SPDX-License-Identifier: GPL-2.0-only */
/* output_file.h: a file the user names for a command's output (a flame
 * graph, a pprof profile, a merged recording), never opened through a
 * symlink nor into anything but a regular file of the caller's. */
#ifndef RINGTRACE_OUTPUT_FILE_H
#define RINGTRACE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Creates path exclusively, mode 0600; returns the fd (write-only,
 * close-on-exec) or -errno with err set (an existing file: remove it or
 * choose another name). For what holds a whole recording (merge). */
int output_path_create(const char *path, char *err, size_t errlen);

/* Creates path, or writes over it as perf writes its outputs when it is a
 * regular file of the caller's with one link (anything else, a symlink
 * among them, is refused with err set). shareable: created with the umask's
 * mode, for what holds nothing others may not see (a flame graph: names of
 * functions and processes); else 0600, an existing file made 0600 too (a
 * pprof profile holds the kernel's addresses). The fd or -errno. */
int output_path_replace(const char *path, bool shareable, char *err, size_t errlen);

#endif
