/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_single.c: a recording written again as one perf.data file: the
 * file header, the attrs with their ids copied after them, one data section
 * of every file's records merged by time (record_stream: the order perf
 * reads a directory in), then the header file's feature sections but
 * HEADER_DIR_FORMAT, with their table. Written in order, the file header
 * last, once the data section's size is known. */
#include "format/perf_data_single.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/input_file.h"
#include "format/perf_file.h"
#include "format/record_stream.h"
#include "lib/byte_buffer.h"
#include "lib/full_io.h"
#include "lib/log.h"

/* Records are written out in chunks of about this many bytes. */
#define CHUNK_BYTES (1u << 20)

struct writer {
	int fd;
	uint64_t at; /* bytes written */
	struct byte_buffer buf;
	int error; /* errno of the first failed write */
};

static int flush(struct writer *w)
{
	int r;

	if (w->error || !w->buf.len)
		return w->error ? -w->error : 0;
	r = write_full(w->fd, w->buf.data, w->buf.len);
	if (r) {
		w->error = -r;
		return r;
	}
	w->at += w->buf.len;
	byte_buffer_reset(&w->buf);
	return 0;
}

static int put(struct writer *w, const void *p, size_t len)
{
	if (w->error)
		return -w->error;
	if (!byte_buffer_append(&w->buf, p, len)) {
		w->error = ENOMEM;
		return -ENOMEM;
	}
	return w->buf.len >= CHUNK_BYTES ? flush(w) : 0;
}

/* Where the next byte put goes. */
static uint64_t offset(const struct writer *w)
{
	return w->at + w->buf.len;
}

/* The header file's bytes at section s, if the reader holds them (inside
 * the file, outside the data section's edges: see perf_input_file_bytes). */
static const uint8_t *section(const struct perf_input *in, const struct perf_file_section *s)
{
	return perf_input_file_bytes(&in->files[0], s->offset, s->size);
}

/* The attrs (each with its ids section moved to where its ids are copied,
 * right after the attrs), then the ids. */
static int put_attrs(const struct perf_input *in, struct writer *w, struct perf_file_header *fh,
		     char *err, size_t errlen)
{
	const struct perf_file_header *h = &in->header;
	const uint8_t *attrs = section(in, &h->attrs);
	size_t entry = h->attr_size, nr = entry ? h->attrs.size / entry : 0;
	uint64_t ids_at;

	if (!attrs || entry < sizeof(struct perf_file_section) || !nr) {
		rt_format(err, errlen, "%s: malformed attrs section", in->files[0].path);
		return -EINVAL;
	}
	fh->attr_size = entry;
	fh->attrs = (struct perf_file_section){ offset(w), nr * entry };
	ids_at = fh->attrs.offset + fh->attrs.size;
	for (size_t i = 0; i < nr; i++) {
		struct perf_file_section ids;

		memcpy(&ids, attrs + i * entry + entry - sizeof(ids), sizeof(ids));
		if (!section(in, &ids)) {
			rt_format(err, errlen, "%s: attr %zu: its ids lie past the file's end",
				  in->files[0].path, i);
			return -EINVAL;
		}
		put(w, attrs + i * entry, entry - sizeof(ids));
		ids.offset = ids_at;
		ids_at += ids.size;
		put(w, &ids, sizeof(ids));
	}
	for (size_t i = 0; i < nr; i++) {
		struct perf_file_section ids;

		memcpy(&ids, attrs + i * entry + entry - sizeof(ids), sizeof(ids));
		put(w, section(in, &ids), ids.size);
	}
	return 0;
}

/* Every record of every file, in time order. */
static int put_records(const struct perf_input *in, struct writer *w, struct perf_file_header *fh,
		       uint64_t *records, char *err, size_t errlen)
{
	struct record_stream *rs = record_stream_open(in, err, errlen);
	struct stream_record sr;
	int more;

	if (!rs)
		return -EIO; /* what failed is in err */
	fh->data.offset = offset(w);
	while ((more = record_stream_next(rs, &sr)) > 0 && !put(w, sr.rec, sr.rec->size))
		(*records)++;
	record_stream_close(rs);
	fh->data.size = offset(w) - fh->data.offset;
	if (more < 0) {
		rt_format(err, errlen, "%s: interrupted", in->path);
		return more;
	}
	return w->error ? -w->error : 0;
}

/* The header file's features but the directory format's: their table (one
 * section a feature, in bit order, after the data section), then each. */
static int put_features(const struct perf_input *in, struct writer *w, struct perf_file_header *fh,
			char *err, size_t errlen)
{
	const struct perf_file_header *h = &in->header;
	struct perf_file_section at = { h->data.offset + h->data.size, 0 };
	struct perf_file_section table[PERF_FILE_FEATURE_BITS];
	unsigned int bits[PERF_FILE_FEATURE_BITS], nr = 0;
	uint64_t payload;

	for (unsigned int b = 0; b < PERF_FILE_FEATURE_BITS; b++)
		if (h->features[b / 64] >> (b % 64) & 1)
			bits[nr++] = b;
	at.size = nr * sizeof(table[0]);
	if (!section(in, &at)) {
		rt_format(err, errlen, "%s: the feature sections' table lies past the file's end",
			  in->files[0].path);
		return -EINVAL;
	}
	memcpy(table, section(in, &at), at.size);
	payload = offset(w);
	for (unsigned int i = 0; i < nr; i++)
		if (bits[i] != PERF_FEAT_DIR_FORMAT)
			payload += sizeof(table[0]);
	for (unsigned int i = 0; i < nr; i++) {
		if (bits[i] == PERF_FEAT_DIR_FORMAT)
			continue;
		if (!section(in, &table[i])) {
			rt_format(err, errlen, "%s: feature %u lies past the file's end",
				  in->files[0].path, bits[i]);
			return -EINVAL;
		}
		fh->features[bits[i] / 64] |= 1ull << (bits[i] % 64);
		put(w, &(struct perf_file_section){ payload, table[i].size }, sizeof(table[0]));
		payload += table[i].size;
	}
	for (unsigned int i = 0; i < nr; i++)
		if (bits[i] != PERF_FEAT_DIR_FORMAT)
			put(w, section(in, &table[i]), table[i].size);
	return 0;
}

int perf_data_write_single(const struct perf_input *in, int fd,
			   struct perf_data_single_totals *totals, char *err, size_t errlen)
{
	struct perf_file_header fh = { .magic = PERF_FILE_MAGIC, .size = sizeof(fh) };
	struct writer w = { .fd = fd };
	int ret;

	memset(totals, 0, sizeof(*totals));
	err[0] = '\0';
	/* the file header's room; it is written last */
	put(&w, &fh, sizeof(fh));
	if ((ret = put_attrs(in, &w, &fh, err, errlen)) ||
	    (ret = put_records(in, &w, &fh, &totals->records, err, errlen)) ||
	    (ret = put_features(in, &w, &fh, err, errlen)) || (ret = flush(&w)))
		goto out;
	if (lseek(fd, 0, SEEK_SET) || write_full(fd, &fh, sizeof(fh))) {
		w.error = errno ? errno : EIO;
		ret = -w.error;
		goto out;
	}
	totals->bytes = w.at;
	ret = 0;
out:
	if (ret && !err[0])
		rt_format(err, errlen, "cannot write the file: %s", strerror(w.error ? w.error : EIO));
	byte_buffer_free(&w.buf);
	return ret;
}
