/* SPDX-License-Identifier: GPL-2.0-only */
/* input_file.h: one file of a recording read through a budget: its record
 * range checked against what the file holds on disk, then read whole when
 * small, else mapped and read in windows released behind the reader. */
#ifndef RINGTRACE_INPUT_FILE_H
#define RINGTRACE_INPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_data_reader.h"

/* The most of the header file's bytes outside its data section (the attrs,
 * their ids, the features: a few KiB to a few MiB) read: more is refused. */
#define PERF_INPUT_HEADER_BUDGET (32u << 20)
/* The most bytes of small files read whole for one recording: past it,
 * they are mapped as the big ones are. */
#define PERF_INPUT_WHOLE_BUDGET (16u << 20)
/* The mapped pages a reader of a recording keeps for all its files at once
 * (perf_input_window), whatever their sizes. */
#define PERF_INPUT_RESIDENT_BUDGET (24u << 20)

/* "PATH: cannot open: <strerror(errno)>" into err; where a permission (errno
 * EACCES, EPERM) refused a recording's directory (dir) or file, what keeps
 * this user out and the fix instead. errno as it was. */
void perf_input_cannot_open(const char *path, bool dir, char *err, size_t errlen);

/* Opens the regular file name of dirfd (dirfd < 0: name is a path; its last
 * component no symlink when under dirfd), display naming it in messages:
 * f->size set, nothing read yet (perf_input_file_pread, then
 * perf_input_file_place). 0, or -errno with err set. */
int perf_input_file_open(int dirfd, const char *name, const char *display,
			 struct perf_input_file *f, char *err, size_t errlen);
/* len bytes at offset of the file f opened, before it is placed. 0, or
 * -errno with err set. */
int perf_input_file_pread(struct perf_input_file *f, uint64_t offset, void *buf, size_t len,
			  char *err, size_t errlen);
/*
 * Makes f's record range [start, end) readable at f->data and closes the
 * file. A range the file does not hold on disk is refused with one line
 * ("F: 100 GiB declared but only 80 KiB on disk (a sparse file): not read"):
 * one with a hole in it (SEEK_HOLE; a filesystem without it says the whole
 * file is data), or over 1 MiB of which the file's blocks hold less than a
 * 64th. A file of at most 1 MiB is read whole while *whole_budget lasts
 * (lowered by its size); any other has its range mapped, no page of it
 * read yet. With around, the bytes before start and after end are read too
 * (the header file's attrs and features: perf_input_file_bytes), at most
 * PERF_INPUT_HEADER_BUDGET of them. 0, or -errno with err set.
 */
int perf_input_file_place(struct perf_input_file *f, uint64_t start, uint64_t end, bool around,
			  uint64_t *whole_budget, char *err, size_t errlen);
/* The bytes [offset, offset + len) of a placed file, if it holds them in one
 * place (inside the record range, or before or after it when placed with
 * around); else NULL. */
const uint8_t *perf_input_file_bytes(const struct perf_input_file *f, uint64_t offset,
				     uint64_t len);
void perf_input_file_unmap(struct perf_input_file *f);

/*
 * A reader going forward through a file's record range, in windows: the
 * window it enters and the next one are mapped in one call each, the pages
 * more than a window behind it released (a file read again after them
 * reads them again), so that however big the file, a few windows of it are
 * resident. A file read whole has none of this.
 */
struct perf_input_window {
	uint64_t size;      /* bytes of a window */
	uint64_t next;      /* the file offset whose reading enters the next window */
	uint64_t populated; /* of the mapping: [0, populated) was populated */
	uint64_t released;  /* of the mapping: [0, released) was released */
};

/* A window for one of nr_files files read at once within
 * PERF_INPUT_RESIDENT_BUDGET. */
void perf_input_window_init(struct perf_input_window *w, unsigned int nr_files);
/* The reader is at file offset pos of f (called for every record: inside
 * the window, one comparison). */
void perf_input_window_enter(const struct perf_input_file *f, struct perf_input_window *w,
			     uint64_t pos);
static inline void perf_input_window_at(const struct perf_input_file *f,
					struct perf_input_window *w, uint64_t pos)
{
	if (pos >= w->next)
		perf_input_window_enter(f, w, pos);
}
/* The reader is done with f for now: every page of it released. */
void perf_input_window_end(const struct perf_input_file *f, struct perf_input_window *w);

#endif
