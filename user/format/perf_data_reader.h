/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_reader.h: opens a perf.data directory (or a single perf.data file)
 * read-only, validates its header and attrs, and iterates the records of each file. */
#ifndef RINGTRACE_PERF_DATA_READER_H
#define RINGTRACE_PERF_DATA_READER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_file.h"

struct perf_input_event {
	struct perf_event_attr attr; /* fields past the file's attr size are zero */
	char *name;                  /* from HEADER_EVENT_DESC, or NULL */
	uint64_t *ids;
	uint32_t nr_ids;
};

/* One file of records: the header file's data section, or a whole data.* file. */
struct perf_input_file {
	char *path; /* for messages */
	const uint8_t *data;  /* the bytes of [start, end): data[0] is the file's byte at start */
	uint64_t start, end; /* the record range inside the file */
	uint64_t size;       /* the file's */
	int64_t mtime;       /* the file's st_mtime (perf report --header's "captured on") */
	/* where perf's reader takes the file: 0 the header file, then the
	 * data files in the order their directory lists them */
	unsigned int read_order;
	/* input_file.c's: where the bytes are */
	int fd;               /* while opened and not yet placed */
	bool fd_open;
	uint8_t *whole;       /* a small file read whole, or NULL */
	uint8_t *mapping;     /* the record range's pages mapped, or NULL */
	uint64_t mapped_at;   /* the file offset of mapping[0] (a page's) */
	size_t mapping_size;
	uint8_t *head, *tail; /* with a mapping, the header file's bytes before and after it */
	uint64_t head_size, tail_size;
};

/* The bytes at file offset pos, inside f's record range. */
static inline const uint8_t *perf_input_file_at(const struct perf_input_file *f, uint64_t pos)
{
	return f->data + (pos - f->start);
}

struct perf_input {
	char *path;
	bool is_dir;
	struct perf_file_header header;
	struct perf_input_event *events;
	unsigned int nr_events;
	uint64_t sample_id_type; /* sample_type fields that make up the sample_id trailer */
	bool sample_id_all;
	struct perf_input_file *files; /* [0] is the header file */
	unsigned int nr_files;
	/* each feature's section in the header file, bytes and size (NULL: absent) */
	const uint8_t *feature[PERF_FILE_FEATURE_BITS];
	uint64_t feature_size[PERF_FILE_FEATURE_BITS];
	const uint8_t *tracing_data; /* HEADER_TRACING_DATA (tracepoint formats), or NULL */
	size_t tracing_data_size;
	uint64_t tracing_data_offset; /* in the header file */
	uint64_t *declared_ids; /* every attr's sample ids, sorted */
	unsigned int *declared_id_events; /* the event (index) of each, the first declaring it */
	size_t nr_declared_ids;
	uint64_t whole_budget_left; /* of PERF_INPUT_WHOLE_BUDGET: for the files of more parts */
};

/* Opens path; on failure returns -errno (-EINVAL: malformed) with one line in
 * err naming the file, the offset where relevant, and the problem. Only
 * regular files are accepted, no symlink is followed inside a directory, and
 * each file is read through input_file.h's budgets: a record range the file
 * does not hold on disk (a sparse file) is refused; nothing is mapped but
 * record ranges, and no page of them is read yet. */
int perf_input_open(struct perf_input *in, const char *path, char *err, size_t errlen);
/* The same, its small files read whole within whole_budget bytes (what is
 * left of it kept in in->whole_budget_left). */
int perf_input_open_within(struct perf_input *in, const char *path, uint64_t whole_budget,
			   char *err, size_t errlen);
void perf_input_close(struct perf_input *in);

/* The event a record belongs to (by sample id when there are several), or NULL. */
const struct perf_input_event *perf_input_event_of(const struct perf_input *in,
						   const struct perf_event_header *rec);
/* The event whose attr declares sample id id (the only one, whatever id is,
 * when there is one), or NULL. */
const struct perf_input_event *perf_input_event_of_id(const struct perf_input *in, uint64_t id);

/* Whether record rec, at offset pos of file f, belongs to this recording:
 * 0 if it carries no sample id (no PERF_SAMPLE_IDENTIFIER or ID in its
 * layout, id 0 as perf synthesizes records, perf's own record types) or one
 * an attr of the header declares; -EINVAL with err naming the file and offset if
 * its id is declared by none (a data.* file of another recording) or it is
 * too short to hold one. */
int perf_input_check_id(const struct perf_input *in, const struct perf_input_file *f, uint64_t pos,
			const struct perf_event_header *rec, char *err, size_t errlen);

struct perf_record_iter {
	const struct perf_input_file *file;
	uint64_t pos;
	bool truncated; /* the file ended inside a record (set when next returns 0) */
};

void perf_record_iter_init(struct perf_record_iter *it, const struct perf_input_file *file);
/* 1 with *rec set, 0 at the end, -EINVAL with err set if a record is malformed
 * (its size cannot be a record). A final record cut short is the end, with
 * it->truncated set so the caller can warn. */
int perf_record_next(struct perf_record_iter *it, const struct perf_event_header **rec,
		     char *err, size_t errlen);

#endif
