/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_parts.h: the outputs of one rotated recording (--switch-output)
 * read as one input: each output's files added to the first's, checked to be
 * of the same events, and a rotation's base name found as its outputs. */
#ifndef RINGTRACE_PERF_DATA_PARTS_H
#define RINGTRACE_PERF_DATA_PARTS_H

#include <stddef.h>

#include "format/perf_data_reader.h"

/* Most outputs read as one. */
#define PERF_DATA_MAX_PARTS 4096

/* Adds the files of the recording at path (a directory or a single file) to
 * in, after its own: its header's records and its data files, merged with
 * in's by time as one recording. Its events and their ids must be in's (an
 * output of the same recording). 0, or -errno with one line in err. */
int perf_input_add(struct perf_input *in, const char *path, char *err, size_t errlen);

/* The outputs a rotation with base name path left (path.YYYYmmddHHMMSSCC, as
 * perf names them: 16 digits; the caller's own entries only), oldest first, in *paths (the caller frees
 * each and the array), when path itself does not exist: their number, 0 if
 * there are none (or path exists), or -errno with err set (more than
 * PERF_DATA_MAX_PARTS). */
int perf_data_rotated_outputs(const char *path, char ***paths, char *err, size_t errlen);

#endif
