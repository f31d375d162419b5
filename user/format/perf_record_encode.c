/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_record_encode.c: perf records written as the kernel writes them, each
 * with its sample_id trailer (the encoders of format/perf_record.h). */
#include "format/perf_record.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static int put_sample_id(struct byte_buffer *b, uint64_t sample_type,
			 const struct perf_sample_id *sid)
{
	static const struct perf_sample_id none;
	uint32_t pair[2];

	if (!sid)
		sid = &none;
	if (sample_type & PERF_SAMPLE_TID) {
		pair[0] = sid->pid;
		pair[1] = sid->tid;
		if (!byte_buffer_append(b, pair, sizeof(pair)))
			return -ENOMEM;
	}
	if ((sample_type & PERF_SAMPLE_TIME) && !byte_buffer_append(b, &sid->time, 8))
		return -ENOMEM;
	if ((sample_type & PERF_SAMPLE_ID) && !byte_buffer_append(b, &sid->id, 8))
		return -ENOMEM;
	if ((sample_type & PERF_SAMPLE_STREAM_ID) && !byte_buffer_append(b, &sid->stream_id, 8))
		return -ENOMEM;
	if (sample_type & PERF_SAMPLE_CPU) {
		pair[0] = sid->cpu;
		pair[1] = 0;
		if (!byte_buffer_append(b, pair, sizeof(pair)))
			return -ENOMEM;
	}
	if ((sample_type & PERF_SAMPLE_IDENTIFIER) && !byte_buffer_append(b, &sid->id, 8))
		return -ENOMEM;
	return 0;
}

/* Starts a record: reserves its header, returns its offset in b. */
static int begin_record(struct byte_buffer *b, size_t *start)
{
	*start = b->len;
	return byte_buffer_append(b, NULL, sizeof(struct perf_event_header)) ? 0 : -ENOMEM;
}

/* Appends a NUL-terminated string padded with NULs to the record alignment. */
static int put_string(struct byte_buffer *b, const char *s)
{
	if (!byte_buffer_append(b, s, strlen(s) + 1))
		return -ENOMEM;
	return byte_buffer_pad(b, PERF_RECORD_ALIGN);
}

/* Finishes a record begun at start: trailer, then the header with its size. */
static int end_record(struct byte_buffer *b, size_t start, uint32_t type, uint16_t misc,
		      uint64_t sample_type, const struct perf_sample_id *sid)
{
	struct perf_event_header hdr = { .type = type, .misc = misc };

	if (put_sample_id(b, sample_type, sid) || b->len - start > PERF_RECORD_MAX_SIZE) {
		int e = b->len - start > PERF_RECORD_MAX_SIZE ? -E2BIG : -ENOMEM;

		b->len = start;
		return e;
	}
	hdr.size = (uint16_t)(b->len - start);
	memcpy(b->data + start, &hdr, sizeof(hdr));
	return 0;
}

int perf_comm_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_comm *c,
		     const struct perf_sample_id *sid)
{
	uint32_t pair[2] = { c->pid, c->tid };
	size_t start;

	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, pair, sizeof(pair)) || put_string(b, c->comm)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, PERF_RECORD_COMM, c->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
			  sample_type, sid);
}

/* MMAP2 of m with misc's cpumode: build-id form if m has one, else device
 * and inode. */
static int mmap2_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_mmap *m,
			uint16_t misc, const struct perf_sample_id *sid)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint8_t ids[24];
		uint32_t prot, flags;
	} body = { m->pid, m->tid, m->start, m->len, m->pgoff, { 0 }, m->prot, m->flags };
	size_t start;

	_Static_assert(sizeof(body) == 64, "MMAP2 fixed part is 64 bytes");
	if (m->build_id_size) {
		body.ids[0] = m->build_id_size > 20 ? 20 : m->build_id_size;
		memcpy(body.ids + 4, m->build_id, 20);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		memcpy(body.ids, &m->maj, 4);
		memcpy(body.ids + 4, &m->min, 4);
		memcpy(body.ids + 8, &m->ino, 8);
		memcpy(body.ids + 16, &m->ino_generation, 8);
	}
	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, &body, sizeof(body)) || put_string(b, m->filename)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, PERF_RECORD_MMAP2, misc, sample_type, sid);
}

int perf_mmap2_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_mmap *m,
		      const struct perf_sample_id *sid)
{
	uint16_t misc = PERF_RECORD_MISC_USER;

	if (m->prot && !(m->prot & PROT_EXEC))
		misc |= PERF_RECORD_MISC_MMAP_DATA; /* as the kernel marks mmap_data's */
	return mmap2_encode(b, sample_type, m, misc, sid);
}

int perf_kernel_map_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_mmap *m,
			   const struct perf_sample_id *sid)
{
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
	} body = { m->pid, m->tid, m->start, m->len, m->pgoff };
	size_t start;

	if (m->build_id_size)
		return mmap2_encode(b, sample_type, m, PERF_RECORD_MISC_KERNEL, sid);
	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, &body, sizeof(body)) || put_string(b, m->filename)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, sample_type, sid);
}

int perf_kernel_mmap_encode(struct byte_buffer *b, uint64_t sample_type, uint64_t text_start,
			    const struct perf_sample_id *sid)
{
	struct perf_mmap m = { .pid = (uint32_t)-1, .start = text_start,
			       .len = ~0ULL - text_start, .pgoff = text_start,
			       .filename = PERF_KERNEL_TEXT_NAME };

	return perf_kernel_map_encode(b, sample_type, &m, sid);
}

int perf_task_encode(struct byte_buffer *b, uint64_t sample_type, uint32_t type,
		     const struct perf_task *t, const struct perf_sample_id *sid)
{
	uint32_t ids[4] = { t->pid, t->ppid, t->tid, t->ptid };
	size_t start;

	if (type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT)
		return -EINVAL;
	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, ids, sizeof(ids)) || !byte_buffer_append(b, &t->time, 8)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, type, 0, sample_type, sid);
}

int perf_cgroup_encode(struct byte_buffer *b, uint64_t sample_type, const struct perf_cgroup *c,
		       const struct perf_sample_id *sid)
{
	size_t start;

	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, &c->id, 8) || put_string(b, c->path)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, PERF_RECORD_CGROUP, 0, sample_type, sid);
}

int perf_namespaces_encode(struct byte_buffer *b, uint64_t sample_type,
			   const struct perf_namespaces *n, const struct perf_sample_id *sid)
{
	struct {
		uint32_t pid, tid;
		uint64_t nr;
	} head = { n->pid, n->tid, NR_NAMESPACES };
	size_t start;

	if (begin_record(b, &start))
		return -ENOMEM;
	if (!byte_buffer_append(b, &head, sizeof(head)) ||
	    !byte_buffer_append(b, n->ns, sizeof(n->ns))) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, PERF_RECORD_NAMESPACES, 0, sample_type, sid);
}

int perf_lost_encode(struct byte_buffer *b, uint64_t sample_type, uint32_t type,
		     const struct perf_lost *l, const struct perf_sample_id *sid)
{
	size_t start;

	if (type != PERF_RECORD_LOST && type != PERF_RECORD_LOST_SAMPLES)
		return -EINVAL;
	if (begin_record(b, &start))
		return -ENOMEM;
	if ((type == PERF_RECORD_LOST && !byte_buffer_append(b, &l->id, 8)) ||
	    !byte_buffer_append(b, &l->lost, 8)) {
		b->len = start;
		return -ENOMEM;
	}
	return end_record(b, start, type, 0, sample_type, sid);
}
