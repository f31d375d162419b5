/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_reader.c: opens a perf.data directory (or a single perf.data file)
 * read-only, validates its header and attrs, and iterates the records of each file. */
#include "format/perf_data_reader.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/input_file.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "lib/log.h"
#include "sys/dir_entries.h"
#include "sys/safe_open.h"

#define SAMPLE_ID_FIELDS                                                                   \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |      \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* A string of a feature section: u32 padded length, then the bytes. */
static char *read_feature_string(const uint8_t **p, const uint8_t *end)
{
	uint32_t len;
	char *s;

	if (end - *p < 4)
		return NULL;
	memcpy(&len, *p, 4);
	*p += 4;
	if (len > (size_t)(end - *p))
		return NULL;
	s = strndup((const char *)*p, len);
	*p += len;
	return s;
}

/* Names from HEADER_EVENT_DESC (the section's bytes, p), matched to attrs
 * by position. Best effort: an odd section leaves names NULL. */
static void read_event_names(struct perf_input *in, const uint8_t *p, uint64_t size)
{
	const uint8_t *end = p + size;
	uint32_t nr, attr_size;

	if (end - p < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&attr_size, p + 4, 4);
	p += 8;
	for (uint32_t i = 0; i < nr && i < in->nr_events; i++) {
		uint32_t nr_ids;

		if ((uint64_t)(end - p) < (uint64_t)attr_size + 4)
			return;
		p += attr_size;
		memcpy(&nr_ids, p, 4);
		p += 4;
		in->events[i].name = read_feature_string(&p, end);
		if (!in->events[i].name || nr_ids > (uint64_t)(end - p) / 8)
			return;
		p += (size_t)nr_ids * 8;
	}
}

/* Why section s of the header file is not where it can be read. */
static const char *where_not(const struct perf_input_file *hf, const struct perf_file_section *s)
{
	return s->offset > hf->size || s->size > hf->size - s->offset
		       ? "past the end of the file"
		       : "across an edge of the data section";
}

/* Walks the feature index at data.offset + data.size: the index and every
 * section it names must lie inside the file, outside its data section. */
static int read_features(struct perf_input *in, char *err, size_t errlen)
{
	const struct perf_input_file *hf = &in->files[0];
	uint64_t at = in->header.data.offset + in->header.data.size; /* both checked: no wrap */

	for (int bit = 0; bit < PERF_FILE_FEATURE_BITS; bit++) {
		struct perf_file_section sec;
		const uint8_t *p = perf_input_file_bytes(hf, at, sizeof(sec));

		if (!(in->header.features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!p) {
			rt_format(err, errlen, "%s: offset %llu: the index of feature %d runs past the end of the file",
				  hf->path, (unsigned long long)at, bit);
			return -EINVAL;
		}
		memcpy(&sec, p, sizeof(sec));
		if (!(p = perf_input_file_bytes(hf, sec.offset, sec.size))) {
			rt_format(err, errlen, "%s: offset %llu: feature %d section [%llu, +%llu) runs %s",
				  hf->path, (unsigned long long)at, bit, (unsigned long long)sec.offset,
				  (unsigned long long)sec.size, where_not(hf, &sec));
			return -EINVAL;
		}
		at += sizeof(sec);
		in->feature[bit] = p;
		in->feature_size[bit] = sec.size;
		if (bit == PERF_FEAT_EVENT_DESC)
			read_event_names(in, p, sec.size);
		if (bit == PERF_FEAT_TRACING_DATA) {
			in->tracing_data = p;
			in->tracing_data_size = sec.size;
			in->tracing_data_offset = sec.offset;
		}
	}
	return 0;
}

static int compare_ids(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct declared_id {
	uint64_t id;
	unsigned int event;
};

static int compare_declared(const void *a, const void *b)
{
	const struct declared_id *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

/* Every attr's ids in one sorted array, with the event of each (the first
 * event declaring an id first), for perf_input_check_id and
 * perf_input_event_of. */
static int collect_ids(struct perf_input *in, char *err, size_t errlen)
{
	struct declared_id *pairs;
	size_t nr = 0;

	for (unsigned int i = 0; i < in->nr_events; i++)
		nr += in->events[i].nr_ids;
	pairs = malloc((nr ? nr : 1) * sizeof(*pairs));
	in->declared_ids = malloc((nr ? nr : 1) * sizeof(uint64_t));
	in->declared_id_events = malloc((nr ? nr : 1) * sizeof(unsigned int));
	if (!pairs || !in->declared_ids || !in->declared_id_events) {
		free(pairs);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < in->nr_events; i++)
		for (uint32_t j = 0; j < in->events[i].nr_ids; j++)
			pairs[in->nr_declared_ids++] = (struct declared_id){ in->events[i].ids[j], i };
	if (nr)
		qsort(pairs, nr, sizeof(*pairs), compare_declared);
	for (size_t i = 0; i < nr; i++) {
		in->declared_ids[i] = pairs[i].id;
		in->declared_id_events[i] = pairs[i].event;
	}
	free(pairs);
	return 0;
}

static int read_attrs(struct perf_input *in, char *err, size_t errlen)
{
	const struct perf_input_file *hf = &in->files[0];
	const struct perf_file_header *h = &in->header;
	const uint8_t *attrs = perf_input_file_bytes(hf, h->attrs.offset, h->attrs.size);
	uint64_t entry = h->attr_size;

	if (entry < PERF_ATTR_SIZE_VER0 + sizeof(struct perf_file_section) || entry > 4096 ||
	    h->attrs.size % entry || !h->attrs.size) {
		rt_format(err, errlen, "%s: offset 16: bad attr size %llu or attrs size %llu",
			  hf->path, (unsigned long long)entry, (unsigned long long)h->attrs.size);
		return -EINVAL;
	}
	if (!attrs) {
		rt_format(err, errlen, "%s: offset %llu: attrs section runs %s", hf->path,
			  (unsigned long long)h->attrs.offset, where_not(hf, &h->attrs));
		return -EINVAL;
	}
	in->nr_events = (unsigned int)(h->attrs.size / entry);
	in->events = calloc(in->nr_events, sizeof(*in->events));
	if (!in->events)
		return -ENOMEM;
	for (unsigned int i = 0; i < in->nr_events; i++) {
		uint64_t at = h->attrs.offset + i * entry;
		size_t attr_bytes = entry - sizeof(struct perf_file_section);
		struct perf_input_event *ev = &in->events[i];
		struct perf_file_section ids;
		const uint8_t *id_bytes;

		memcpy(&ev->attr, attrs + i * entry,
		       attr_bytes < sizeof(ev->attr) ? attr_bytes : sizeof(ev->attr));
		memcpy(&ids, attrs + i * entry + attr_bytes, sizeof(ids));
		id_bytes = perf_input_file_bytes(hf, ids.offset, ids.size);
		if (ids.size % 8 || !id_bytes || ids.size / 8 > UINT32_MAX) {
			rt_format(err, errlen, "%s: offset %llu: ids of attr %u %s%s", hf->path,
				  (unsigned long long)(at + attr_bytes), i,
				  id_bytes ? "are not whole ids below 2^32" : "run ",
				  id_bytes ? "" : where_not(hf, &ids));
			return -EINVAL;
		}
		ev->nr_ids = (uint32_t)(ids.size / 8);
		if (ev->nr_ids) {
			ev->ids = malloc(ids.size);
			if (!ev->ids)
				return -ENOMEM;
			memcpy(ev->ids, id_bytes, ids.size);
		}
		if (i == 0) {
			in->sample_id_type = ev->attr.sample_type & SAMPLE_ID_FIELDS;
			in->sample_id_all = ev->attr.sample_id_all;
		} else if ((ev->attr.sample_type & SAMPLE_ID_FIELDS) != in->sample_id_type ||
			   ev->attr.sample_id_all != in->sample_id_all) {
			rt_format(err, errlen, "%s: offset %llu: attr %u disagrees with attr 0 on the sample_id layout",
				  hf->path, (unsigned long long)at, i);
			return -EINVAL;
		}
		if (ev->attr.sample_type & ~PERF_SAMPLE_DECODABLE) {
			rt_format(err, errlen, "%s: offset %llu: attr %u has sample_type 0x%llx with fields ringtrace cannot decode",
				  hf->path, (unsigned long long)at, i,
				  (unsigned long long)ev->attr.sample_type);
			return -EINVAL;
		}
	}
	if (in->nr_events > 1 && !(in->sample_id_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID))) {
		rt_format(err, errlen, "%s: %u events but no sample ids to tell them apart",
			  hf->path, in->nr_events);
		return -EINVAL;
	}
	return 0;
}

/* The header file's header, then its data section placed (the rest of the
 * file read beside it), then its attrs. */
static int read_header(struct perf_input *in, uint64_t *whole_budget, char *err, size_t errlen)
{
	struct perf_input_file *hf = &in->files[0];
	struct perf_file_header *h = &in->header;
	int ret;

	if (hf->size < sizeof(*h)) {
		rt_format(err, errlen, "%s: offset 0: file too short for a perf.data header (%llu bytes)",
			  hf->path, (unsigned long long)hf->size);
		return -EINVAL;
	}
	if ((ret = perf_input_file_pread(hf, 0, h, sizeof(*h), err, errlen)))
		return ret;
	if (h->magic != PERF_FILE_MAGIC) {
		rt_format(err, errlen, "%s: offset 0: not a perf.data file (bad magic)", hf->path);
		return -EINVAL;
	}
	if (h->size != sizeof(*h)) {
		rt_format(err, errlen, "%s: offset 8: unsupported header size %llu", hf->path,
			  (unsigned long long)h->size);
		return -EINVAL;
	}
	if (h->data.offset > hf->size || h->data.size > hf->size - h->data.offset) {
		rt_format(err, errlen, "%s: offset 40: data section [%llu, +%llu) runs past the end of the file",
			  hf->path, (unsigned long long)h->data.offset, (unsigned long long)h->data.size);
		return -EINVAL;
	}
	if (h->data.offset % PERF_RECORD_ALIGN) {
		rt_format(err, errlen, "%s: offset 40: data section at %llu is not 8-byte aligned",
			  hf->path, (unsigned long long)h->data.offset);
		return -EINVAL;
	}
	if ((ret = perf_input_file_place(hf, h->data.offset, h->data.offset + h->data.size, true,
					 whole_budget, err, errlen)))
		return ret;
	return read_attrs(in, err, errlen);
}

/* N of "data.cpuN" (at most 2^31 - 1), or -1. */
static long cpu_number(const char *name)
{
	const char *digits = name + strlen("data.cpu");
	unsigned long n;
	char *end;

	if (strncmp(name, "data.cpu", strlen("data.cpu")) || !isdigit((unsigned char)*digits))
		return -1;
	errno = 0;
	n = strtoul(digits, &end, 10);
	return errno || n > INT32_MAX ? INT32_MAX : (long)n;
}

/* A data file's name and its place in the directory's listing. */
struct data_name {
	char *name;
	unsigned int listed;
};

/* "data.cpuN" sorts by N; other "data.*" names after, by name. */
static int compare_data_names(const void *a, const void *b)
{
	const char *x = ((const struct data_name *)a)->name, *y = ((const struct data_name *)b)->name;
	long nx = cpu_number(x), ny = cpu_number(y);

	if (nx >= 0 && ny >= 0 && nx != ny)
		return nx < ny ? -1 : 1;
	if ((nx >= 0) != (ny >= 0))
		return nx >= 0 ? -1 : 1;
	return strcmp(x, y);
}

/* A data file's name ("data.*") appended to the names listed (ctx, a
 * byte_buffer of struct data_name); 1 when memory runs out. */
static int add_data_name(int dirfd, const char *name, void *ctx)
{
	struct byte_buffer *listed = ctx;
	struct data_name dn = { .listed = (unsigned int)(listed->len / sizeof(dn)) };

	(void)dirfd;
	if (strncmp(name, "data.", 5) || !name[5])
		return 0;
	dn.name = strdup(name);
	if (!dn.name || !byte_buffer_append(listed, &dn, sizeof(dn))) {
		free(dn.name);
		return 1;
	}
	return 0;
}

static int open_data_files(struct perf_input *in, int dirfd, uint64_t *whole_budget, char *err,
			   size_t errlen)
{
	struct byte_buffer listed = { 0 };
	struct perf_input_file *files;
	int ret = -ENOMEM, r = dir_each_entry(dirfd, add_data_name, &listed);
	struct data_name *names = (struct data_name *)listed.data;
	size_t nr = listed.len / sizeof(*names);

	if (r) {
		rt_format(err, errlen, "%s: cannot list directory: %s", in->path,
			  r < 0 ? strerror(-r) : "out of memory");
		ret = r < 0 ? r : -ENOMEM;
		goto out;
	}
	if (nr)
		qsort(names, nr, sizeof(*names), compare_data_names);
	files = realloc(in->files, (in->nr_files + nr) * sizeof(*in->files));
	if (!files)
		goto out;
	in->files = files;
	for (size_t i = 0; i < nr; i++) {
		char display[4096];

		struct perf_input_file *f = &in->files[in->nr_files];

		snprintf(display, sizeof(display), "%s/%s", in->path, names[i].name);
		if ((ret = perf_input_file_open(dirfd, names[i].name, display, f, err, errlen)))
			goto out;
		in->nr_files++;
		/* the whole file is records (perf's directory format) */
		if ((ret = perf_input_file_place(f, 0, f->size, false, whole_budget, err, errlen)))
			goto out;
		/* perf reads the header file's records first, then the data
		 * files in the order the directory lists them */
		f->read_order = names[i].listed + 1;
	}
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i].name);
	free(names);
	return ret;
}

int perf_input_open(struct perf_input *in, const char *path, char *err, size_t errlen)
{
	return perf_input_open_within(in, path, PERF_INPUT_WHOLE_BUDGET, err, errlen);
}

int perf_input_open_within(struct perf_input *in, const char *path, uint64_t whole_budget,
			   char *err, size_t errlen)
{
	struct stat st;
	int dirfd = -1, ret = -ENOMEM;

	memset(in, 0, sizeof(*in));
	in->path = strdup(path);
	in->files = calloc(1, sizeof(*in->files));
	if (!in->path || !in->files) {
		rt_format(err, errlen, "out of memory");
		goto fail;
	}
	if (stat(path, &st)) {
		perf_input_cannot_open(path, false, err, errlen);
		ret = -errno;
		goto fail;
	}
	in->is_dir = S_ISDIR(st.st_mode);
	if (in->is_dir) {
		char display[4096];

		dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd < 0) {
			perf_input_cannot_open(path, true, err, errlen);
			ret = -errno;
			goto fail;
		}
		snprintf(display, sizeof(display), "%s/data", path);
		if ((ret = perf_input_file_open(dirfd, "data", display, &in->files[0], err, errlen)))
			goto fail;
	} else if ((ret = perf_input_file_open(-1, path, path, &in->files[0], err, errlen))) {
		goto fail;
	}
	in->nr_files = 1;
	if ((ret = read_header(in, &whole_budget, err, errlen)) ||
	    (ret = read_features(in, err, errlen)) || (ret = collect_ids(in, err, errlen)))
		goto fail;
	if (in->is_dir && (ret = open_data_files(in, dirfd, &whole_budget, err, errlen)))
		goto fail;
	in->whole_budget_left = whole_budget;
	if (dirfd >= 0)
		close(dirfd);
	return 0;
fail:
	if (dirfd >= 0)
		close(dirfd);
	perf_input_close(in);
	return ret;
}

void perf_input_close(struct perf_input *in)
{
	for (unsigned int i = 0; i < in->nr_events; i++) {
		free(in->events[i].name);
		free(in->events[i].ids);
	}
	free(in->events);
	free(in->declared_ids);
	free(in->declared_id_events);
	for (unsigned int i = 0; i < in->nr_files; i++)
		perf_input_file_unmap(&in->files[i]);
	free(in->files);
	free(in->path);
	memset(in, 0, sizeof(*in));
}

/* The sample id rec carries: 1 with *id set, 0 if its layout has none, -EINVAL
 * if it is too short to hold it. */
static int record_id(const struct perf_input *in, const struct perf_event_header *rec,
		     uint64_t *id)
{
	*id = 0;
	if (rec->type >= PERF_RECORD_USER_TYPE_START)
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		const struct perf_input_event *first = &in->events[0];
		struct perf_sample s;

		/* the identifier is the first word whatever the rest holds: the
		 * events' layouts may differ past it */
		if (first->attr.sample_type & PERF_SAMPLE_IDENTIFIER) {
			if (rec->size < sizeof(*rec) + sizeof(*id))
				return -EINVAL;
			memcpy(id, rec + 1, sizeof(*id));
			return 1;
		}
		if (!(first->attr.sample_type & PERF_SAMPLE_ID))
			return 0;
		if (perf_sample_decode_regs(rec, first->attr.sample_type,
					    first->attr.sample_regs_user, &s))
			return -EINVAL;
		*id = s.id;
		return 1;
	}
	if (in->sample_id_all && (in->sample_id_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID))) {
		struct perf_sample_id sid;

		if (perf_sample_id_decode(rec, in->sample_id_type, &sid))
			return -EINVAL;
		*id = sid.id;
		return 1;
	}
	return 0;
}

const struct perf_input_event *perf_input_event_of(const struct perf_input *in,
						   const struct perf_event_header *rec)
{
	uint64_t id;

	if (in->nr_events == 1)
		return &in->events[0];
	if (record_id(in, rec, &id) != 1)
		return NULL;
	return perf_input_event_of_id(in, id);
}

const struct perf_input_event *perf_input_event_of_id(const struct perf_input *in, uint64_t id)
{
	size_t lo = 0, hi;

	if (in->nr_events == 1)
		return &in->events[0];
	/* the first of the declared ids not below id: the first event declaring it */
	for (hi = in->nr_declared_ids; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (in->declared_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == in->nr_declared_ids || in->declared_ids[lo] != id)
		return NULL;
	return &in->events[in->declared_id_events[lo]];
}

int perf_input_check_id(const struct perf_input *in, const struct perf_input_file *f, uint64_t pos,
			const struct perf_event_header *rec, char *err, size_t errlen)
{
	uint64_t id;
	int r = record_id(in, rec, &id);

	if (r < 0) {
		rt_format(err, errlen, "%s: offset %llu: %s record too short for its sample id",
			  f->path, (unsigned long long)pos,
			  perf_record_type_name(rec->type) ? perf_record_type_name(rec->type) : "a");
		return -EINVAL;
	}
	if (!r || !id ||
	    bsearch(&id, in->declared_ids, in->nr_declared_ids, sizeof(id), compare_ids))
		return 0;
	rt_format(err, errlen, "%s: offset %llu: a record of sample id %#llx, which no event of %s declares: the file belongs to another recording (move it out of %s)",
		  f->path, (unsigned long long)pos, (unsigned long long)id, in->files[0].path,
		  in->path);
	return -EINVAL;
}

void perf_record_iter_init(struct perf_record_iter *it, const struct perf_input_file *file)
{
	it->file = file;
	it->pos = file->start;
	it->truncated = false;
}

int perf_record_next(struct perf_record_iter *it, const struct perf_event_header **rec,
		     char *err, size_t errlen)
{
	const struct perf_input_file *f = it->file;
	struct perf_event_header h;
	uint64_t left = f->end - it->pos;

	if (!left)
		return 0;
	if (left < sizeof(h)) {
		it->truncated = true;
		return 0;
	}
	memcpy(&h, perf_input_file_at(f, it->pos), sizeof(h));
	if (h.size < sizeof(h) || h.size % PERF_RECORD_ALIGN) {
		rt_format(err, errlen, "%s: offset %llu: record of type %u has impossible size %u",
			  f->path, (unsigned long long)it->pos, h.type, h.size);
		return -EINVAL;
	}
	if (h.size > left) {
		it->truncated = true;
		return 0;
	}
	*rec = (const struct perf_event_header *)perf_input_file_at(f, it->pos);
	it->pos += h.size;
	return 1;
}
