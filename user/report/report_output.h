/* SPDX-License-Identifier: GPL-2.0-only */
/* report_output.h: the file a report writes on request (flame graph, pprof):
 * created 0600, never through a symlink nor over a file; "-" is stdout. */
#ifndef RINGTRACE_REPORT_OUTPUT_H
#define RINGTRACE_REPORT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/* A stream on path, created exclusively (mode 0600, O_NOFOLLOW), or stdout
 * itself if path is "-" (the stream the report prints to). NULL with err set. */
FILE *report_output_open(const char *path, FILE *stdout_stream, char *err, size_t errlen);
/* Closes what report_output_open gave (stdout is only flushed). 0, or -errno
 * with err set if a write failed (a full disk). */
int report_output_close(FILE *f, FILE *stdout_stream, const char *path, char *err, size_t errlen);

#endif
