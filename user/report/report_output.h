/* SPDX-License-Identifier: GPL-2.0-only */
/* report_output.h: the file a report writes on request (flame graph, pprof),
 * created or written over as perf writes its outputs, never through a
 * symlink nor into another's file; "-" is stdout. */
#ifndef RINGTRACE_REPORT_OUTPUT_H
#define RINGTRACE_REPORT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A stream on path (output_path_replace: shareable, the umask's mode; else
 * 0600), or stdout itself if path is "-" (the stream the report prints to).
 * NULL with err set. */
FILE *report_output_open(const char *path, bool shareable, FILE *stdout_stream, char *err,
			 size_t errlen);
/* Closes what report_output_open gave (stdout is only flushed). 0, or -errno
 * with err set if a write failed (a full disk). */
int report_output_close(FILE *f, FILE *stdout_stream, const char *path, char *err, size_t errlen);

#endif
