/* SPDX-License-Identifier: GPL-2.0-only */
/* input_file.h: one file of a recording, mapped read-only, or read whole
 * when small; a FIFO, device or symlink planted in its place refused. */
#ifndef RINGTRACE_INPUT_FILE_H
#define RINGTRACE_INPUT_FILE_H

#include <stddef.h>

#include "format/perf_data_reader.h"

/* The regular file name of dirfd (dirfd < 0: name is a path; its last
 * component no symlink when under dirfd), display naming it in messages,
 * into f whole (f->end its size). 0, or -errno with err set. */
int perf_input_file_map(int dirfd, const char *name, const char *display, struct perf_input_file *f,
			char *err, size_t errlen);
void perf_input_file_unmap(struct perf_input_file *f);

#endif
