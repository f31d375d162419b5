/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_writer.c: writes a perf.data directory: the header file "data"
 * (attrs, side-band, features) and append-only per-CPU record streams. */
#include "format/perf_data_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/perf_file.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "lib/full_io.h"
#include "lib/log.h"

/* perf's do_write_string: u32 padded length, then the string NUL-padded. */
static int put_feature_string(struct byte_buffer *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	uint32_t len = (uint32_t)((olen + PERF_FILE_STRING_ALIGN - 1) &
				  ~(size_t)(PERF_FILE_STRING_ALIGN - 1));

	if (!byte_buffer_append(b, &len, sizeof(len)) || !byte_buffer_append(b, s, olen) ||
	    !byte_buffer_append(b, NULL, len - olen))
		return -ENOMEM;
	return 0;
}

static int put_u32(struct byte_buffer *b, uint32_t v)
{
	return byte_buffer_append(b, &v, sizeof(v)) ? 0 : -ENOMEM;
}

static int put_u64(struct byte_buffer *b, uint64_t v)
{
	return byte_buffer_append(b, &v, sizeof(v)) ? 0 : -ENOMEM;
}

/* The attr as the file stores it: the first 128 bytes, size 128. */
static void file_attr(const struct perf_event_attr *in, uint8_t out[PERF_FILE_ATTR_SIZE])
{
	struct perf_event_attr a = *in;

	a.size = PERF_FILE_ATTR_SIZE;
	memcpy(out, &a, PERF_FILE_ATTR_SIZE);
}

static int put_event_desc(struct byte_buffer *b, const struct perf_data_header *h)
{
	if (put_u32(b, h->nr_events) || put_u32(b, PERF_FILE_ATTR_SIZE))
		return -ENOMEM;
	for (unsigned int i = 0; i < h->nr_events; i++) {
		const struct perf_data_event *ev = &h->events[i];
		uint8_t attr[PERF_FILE_ATTR_SIZE];

		file_attr(&ev->attr, attr);
		if (!byte_buffer_append(b, attr, sizeof(attr)) || put_u32(b, ev->nr_ids) ||
		    put_feature_string(b, ev->name ? ev->name : "") ||
		    (ev->nr_ids && !byte_buffer_append(b, ev->ids, ev->nr_ids * sizeof(uint64_t))))
			return -ENOMEM;
	}
	return 0;
}

static int put_cmdline(struct byte_buffer *b, const struct perf_data_header *h)
{
	if (put_u32(b, (uint32_t)h->argc))
		return -ENOMEM;
	for (int i = 0; i < h->argc; i++)
		if (put_feature_string(b, h->argv[i]))
			return -ENOMEM;
	return 0;
}

/* Builds the payload of one feature; 1 if the feature has nothing to say. */
static int put_feature(struct byte_buffer *b, int feat, const struct perf_data_header *h)
{
	switch (feat) {
	case PERF_FEAT_TRACING_DATA:
		if (!h->tracing_data_size)
			return 1;
		return byte_buffer_append(b, h->tracing_data, h->tracing_data_size) ? 0 : -ENOMEM;
	case PERF_FEAT_HOSTNAME:
		return h->hostname ? put_feature_string(b, h->hostname) : 1;
	case PERF_FEAT_OSRELEASE:
		return h->osrelease ? put_feature_string(b, h->osrelease) : 1;
	case PERF_FEAT_VERSION:
		return h->version ? put_feature_string(b, h->version) : 1;
	case PERF_FEAT_ARCH:
		return h->arch ? put_feature_string(b, h->arch) : 1;
	case PERF_FEAT_NRCPUS:
		if (!h->nr_cpus_available)
			return 1;
		return put_u32(b, h->nr_cpus_available) || put_u32(b, h->nr_cpus_online) ? -ENOMEM : 0;
	case PERF_FEAT_CMDLINE:
		return h->argc > 0 ? put_cmdline(b, h) : 1;
	case PERF_FEAT_EVENT_DESC:
		return put_event_desc(b, h);
	case PERF_FEAT_CLOCKID:
		return h->clockid_res_ns ? put_u64(b, h->clockid_res_ns) : 1;
	case PERF_FEAT_DIR_FORMAT:
		return put_u64(b, PERF_DIR_FORMAT_VERSION);
	default:
		return 1;
	}
}

/* In bit order, as the feature index must be. */
static const int written_features[] = {
	PERF_FEAT_TRACING_DATA, PERF_FEAT_HOSTNAME, PERF_FEAT_OSRELEASE,  PERF_FEAT_VERSION,
	PERF_FEAT_ARCH,         PERF_FEAT_NRCPUS,   PERF_FEAT_CMDLINE,    PERF_FEAT_EVENT_DESC,
	PERF_FEAT_CLOCKID,      PERF_FEAT_DIR_FORMAT,
};
#define NR_WRITTEN_FEATURES (sizeof(written_features) / sizeof(written_features[0]))

/* Feature index and payloads: the index sits at data.offset + data.size with
 * one section per set bit, in bit order, then the payloads. */
static int build_features(struct byte_buffer *out, uint64_t start, struct perf_file_header *fh,
			  const struct perf_data_header *h)
{
	struct perf_file_section index[NR_WRITTEN_FEATURES];
	struct byte_buffer payload = { 0 };
	unsigned int nr = 0;
	uint64_t base;
	int ret = -ENOMEM;

	for (size_t i = 0; i < NR_WRITTEN_FEATURES; i++) {
		size_t before = payload.len;
		int r = put_feature(&payload, written_features[i], h);

		if (r < 0)
			goto out;
		if (r > 0)
			continue;
		index[nr].offset = before;
		index[nr].size = payload.len - before;
		fh->features[written_features[i] / 64] |= 1ULL << (written_features[i] % 64);
		nr++;
	}
	base = start + nr * sizeof(struct perf_file_section);
	for (unsigned int i = 0; i < nr; i++)
		index[i].offset += base;
	if (!byte_buffer_append(out, index, nr * sizeof(index[0])) ||
	    (payload.len && !byte_buffer_append(out, payload.data, payload.len)))
		goto out;
	ret = 0;
out:
	byte_buffer_free(&payload);
	return ret;
}

int perf_data_write_header(int fd, const struct perf_data_header *h, const void *data,
			   size_t data_size, char *err, size_t errlen)
{
	struct perf_file_header fh = {
		.magic = PERF_FILE_MAGIC,
		.size = sizeof(struct perf_file_header),
		.attr_size = PERF_FILE_ATTR_ENTRY_SIZE,
	};
	struct byte_buffer b = { 0 };
	uint64_t ids_offset;
	int ret = -ENOMEM;

	if (!h->nr_events) {
		rt_format(err, errlen, "a perf.data header needs at least one event");
		return -EINVAL;
	}
	if (!byte_buffer_append(&b, NULL, sizeof(fh)))
		goto nomem;
	/* ids of every event, then the attrs pointing at them */
	ids_offset = b.len;
	for (unsigned int i = 0; i < h->nr_events; i++)
		if (h->events[i].nr_ids &&
		    !byte_buffer_append(&b, h->events[i].ids, h->events[i].nr_ids * sizeof(uint64_t)))
			goto nomem;
	fh.attrs.offset = b.len;
	fh.attrs.size = (uint64_t)h->nr_events * PERF_FILE_ATTR_ENTRY_SIZE;
	for (unsigned int i = 0; i < h->nr_events; i++) {
		uint8_t attr[PERF_FILE_ATTR_SIZE];
		struct perf_file_section ids = { ids_offset, h->events[i].nr_ids * sizeof(uint64_t) };

		file_attr(&h->events[i].attr, attr);
		if (!byte_buffer_append(&b, attr, sizeof(attr)) ||
		    !byte_buffer_append(&b, &ids, sizeof(ids)))
			goto nomem;
		ids_offset += ids.size;
	}
	fh.data.offset = b.len;
	fh.data.size = data_size;
	if (data_size && !byte_buffer_append(&b, data, data_size))
		goto nomem;
	if (build_features(&b, b.len, &fh, h))
		goto nomem;
	memcpy(b.data, &fh, sizeof(fh));
	if (write_full(fd, b.data, b.len)) {
		rt_format(err, errlen, "cannot write the perf.data header: %s", strerror(errno));
		ret = -errno;
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	rt_format(err, errlen, "out of memory building the perf.data header");
out:
	byte_buffer_free(&b);
	return ret;
}

/* Room for a last record after the file's end, taken now: when the disk
 * fills, the LOST record that says so still fits (filesystems without
 * fallocate just do without). */
static void reserve_tail(struct perf_data_stream *s)
{
	if (!s->no_reserve &&
	    fallocate(s->fd, FALLOC_FL_KEEP_SIZE, (off_t)s->bytes_written, PERF_DATA_TAIL_RESERVE))
		s->no_reserve = true;
}

int perf_data_stream_init(struct perf_data_stream *s, int fd, size_t bufsize)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->cap = bufsize < 2 * PERF_RECORD_MAX_SIZE ? 2 * PERF_RECORD_MAX_SIZE : bufsize;
	s->buf = malloc(s->cap);
	if (!s->buf) {
		s->error = ENOMEM;
		return -ENOMEM;
	}
	reserve_tail(s);
	return 0;
}

int perf_data_stream_flush(struct perf_data_stream *s)
{
	if (s->error)
		return -s->error;
	if (!s->len)
		return 0;
	if (write_full(s->fd, s->buf, s->len)) {
		s->error = errno;
		/* part of the buffer may have reached the file (a full disk):
		 * the file ends where the last whole write did, at a record
		 * boundary, so that readers that map it (perf) see no half record */
		if (ftruncate(s->fd, (off_t)s->bytes_written))
			rt_warn("cannot cut the file back to its last whole record: %s",
				strerror(errno));
		return -s->error;
	}
	s->bytes_written += s->len;
	s->len = 0;
	reserve_tail(s);
	return 0;
}

/* Bytes of a PERF_RECORD_FILL put before a record of size bytes at the
 * stream's end, so that it crosses no page boundary of the file: 0 if it
 * does not, or is bigger than a page. The kernel stops a write for SIGKILL
 * at a page (folio) boundary; a file cut there in a record is one perf's
 * reader faults on (SIGBUS: it maps the record's rest, past the file's
 * end), where a file cut between records is whole. */
static size_t fill_before(const struct perf_data_stream *s, size_t size)
{
	size_t in_page = (size_t)((s->bytes_written + s->len) % PERF_DATA_PAGE);

	return size <= PERF_DATA_PAGE && in_page + size > PERF_DATA_PAGE ? PERF_DATA_PAGE - in_page
									 : 0;
}

int perf_data_stream_append(struct perf_data_stream *s, const void *rec, size_t size)
{
	size_t fill;

	if (s->error)
		return -s->error;
	fill = fill_before(s, size);
	if (s->cap - s->len < fill + size) {
		if (perf_data_stream_flush(s))
			return -s->error;
		fill = fill_before(s, size);
	}
	if (fill) {
		/* records are 8-byte aligned, so the fill is at least a header */
		struct perf_event_header h = { .type = PERF_RECORD_FILL, .size = (uint16_t)fill };

		memset(s->buf + s->len, 0, fill);
		memcpy(s->buf + s->len, &h, sizeof(h));
		s->len += fill;
	}
	memcpy(s->buf + s->len, rec, size);
	s->len += size;
	s->records++;
	return 0;
}

int perf_data_stream_write_after_error(struct perf_data_stream *s, const void *rec, size_t size)
{
	ssize_t n;
	int e;

	if (s->fd < 0)
		return -EBADF;
	n = pwrite(s->fd, rec, size, (off_t)s->bytes_written);
	if (n == (ssize_t)size) {
		s->bytes_written += size;
		return 0;
	}
	e = n < 0 ? errno : ENOSPC;
	if (n > 0 && ftruncate(s->fd, (off_t)s->bytes_written))
		rt_warn("cannot cut the file back to its last whole record: %s", strerror(errno));
	return -e;
}

int perf_data_stream_close(struct perf_data_stream *s)
{
	int ret = perf_data_stream_flush(s);

	if (s->fd >= 0 && close(s->fd) && !s->error) {
		s->error = errno;
		ret = -errno;
	}
	s->fd = -1;
	free(s->buf);
	s->buf = NULL;
	return ret;
}
