/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_ring.c: reads the kernel's perf mmap ring buffer of one perf event:
 * forward (data_head loaded with acquire, data_tail stored with release), or
 * an overwrite ring written backward, paused and read from data_head. */
#include "capture/perf_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static int ring_map(struct perf_ring *r, int fd, size_t data_pages, int prot)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *base;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (!data_pages || (data_pages & (data_pages - 1)))
		return -EINVAL;
	r->mmap_size = (1 + data_pages) * page;
	base = mmap(NULL, r->mmap_size, prot, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -errno;
	/* a backward ring is copied out whole to be read oldest first */
	r->bounce = malloc(prot & PROT_WRITE ? UINT16_MAX + 1 : data_pages * page);
	if (!r->bounce) {
		munmap(base, r->mmap_size);
		return -ENOMEM;
	}
	r->fd = fd;
	r->meta = base;
	r->data = (uint8_t *)base + page;
	r->data_size = data_pages * page;
	return 0;
}

int perf_ring_map(struct perf_ring *r, int fd, size_t data_pages)
{
	return ring_map(r, fd, data_pages, PROT_READ | PROT_WRITE);
}

int perf_ring_map_backward(struct perf_ring *r, int fd, size_t data_pages)
{
	return ring_map(r, fd, data_pages, PROT_READ);
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->meta)
		munmap(r->meta, r->mmap_size);
	free(r->bounce);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

uint64_t perf_ring_pending(const struct perf_ring *r)
{
	return __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE) - r->meta->data_tail;
}

long perf_ring_drain(struct perf_ring *r, size_t release_bytes, perf_ring_record_fn fn, void *ctx)
{
	/* (C): the head is read before any record it covers. */
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->meta->data_tail; /* only we write it */
	uint64_t released = tail, mask = r->data_size - 1;
	long count = 0;
	int err = 0;

	while (tail < head) {
		uint64_t off = tail & mask;
		struct perf_event_header *rec = (struct perf_event_header *)(r->data + off);
		uint16_t size = rec->size;

		if (size < sizeof(*rec) || size > head - tail) {
			err = -EBADMSG;
			break;
		}
		if (off + size > r->data_size) {
			size_t first = r->data_size - off;

			memcpy(r->bounce, r->data + off, first);
			memcpy(r->bounce + first, r->data, size - first);
			rec = (struct perf_event_header *)r->bounce;
		}
		if (fn(ctx, rec))
			break;
		tail += size;
		count++;
		if (tail - released >= release_bytes) {
			/* (D), as below: room for the kernel as the pass goes,
			 * not only at its end */
			__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
			released = tail;
		}
	}
	/* (D): the records are read before the kernel may overwrite them. */
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
	return err ? err : count;
}

long perf_ring_read_backward(struct perf_ring *r, perf_ring_record_fn fn, void *ctx)
{
	uint64_t mask = r->data_size - 1, head, pos, len = 0;
	uint32_t *offsets = NULL;
	size_t nr = 0, cap = 0;
	long ret;

	if (ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1))
		return -errno;
	/* data_head counts down as the kernel writes backward: the newest
	 * record starts there, older ones follow it */
	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	pos = head;
	while (pos - head < r->data_size) {
		struct perf_event_header h;
		uint64_t off = pos & mask;

		/* headers are 8-byte aligned: never split by the end */
		memcpy(&h, r->data + off, sizeof(h));
		if (h.size < sizeof(h) || pos - head + h.size > r->data_size)
			break; /* never written, or only partly left */
		pos += h.size;
	}
	len = pos - head;
	/* the whole range, made linear */
	if ((head & mask) + len <= r->data_size) {
		memcpy(r->bounce, r->data + (head & mask), len);
	} else {
		size_t first = r->data_size - (head & mask);

		memcpy(r->bounce, r->data + (head & mask), first);
		memcpy(r->bounce + first, r->data, len - first);
	}
	if (ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0))
		return -errno;
	for (uint64_t at = 0; at < len; at += ((struct perf_event_header *)(r->bounce + at))->size) {
		if (nr == cap) {
			uint32_t *grown = realloc(offsets, (cap = cap ? cap * 2 : 1024) * sizeof(*offsets));

			if (!grown) {
				free(offsets);
				return -ENOMEM;
			}
			offsets = grown;
		}
		offsets[nr++] = (uint32_t)at;
	}
	ret = (long)nr;
	while (nr--)
		if (fn(ctx, (const struct perf_event_header *)(r->bounce + offsets[nr])))
			break;
	free(offsets);
	return ret;
}
