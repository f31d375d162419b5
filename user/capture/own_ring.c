/* SPDX-License-Identifier: GPL-2.0-only */
/* own_ring.c: reads one CPU's ring of ringtrace's own transport (--transport
 * ring, bpf/own_ring_layout.h) through the loader's mapping of the BPF array: the
 * records between tail and head, tail stored in steps; closes the ring to its
 * writers for a snapshot or the stop. */
#include "capture/own_ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The largest record: a header's size is a u16. */
#define RECORD_MAX 65536

size_t own_ring_element_bytes(size_t data_bytes, size_t slack)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = RT_RING_CONTROL_BYTES + data_bytes + slack;

	return (bytes + page - 1) & ~(page - 1);
}

int own_ring_init(struct own_ring *r, void *element, size_t data_bytes)
{
	r->ctl = element;
	r->data = (const uint8_t *)element + RT_RING_CONTROL_BYTES;
	r->data_bytes = data_bytes;
	r->bounce = malloc(RECORD_MAX);
	return r->bounce ? 0 : -ENOMEM;
}

void own_ring_free(struct own_ring *r)
{
	free(r->bounce);
	r->bounce = NULL;
}

uint64_t own_ring_pending(const struct own_ring *r)
{
	return __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
}

/* Whether h heads a record the writer writes, whole within room bytes. */
static bool whole_record(const struct perf_event_header *h, uint64_t room)
{
	return h->size >= sizeof(*h) && !(h->size % 8) && h->size <= room;
}

/* The record of size bytes at off, in one piece (in the bounce buffer if it
 * wraps past the end). */
static const void *record_at(struct own_ring *r, uint64_t off, size_t size)
{
	size_t first = r->data_bytes - off;

	if (size <= first)
		return r->data + off;
	memcpy(r->bounce, r->data + off, first);
	memcpy((uint8_t *)r->bounce + first, r->data, size - first);
	return r->bounce;
}

long own_ring_drain(struct own_ring *r, size_t release_bytes, own_ring_record_fn fn, void *ctx)
{
	uint64_t tail = r->ctl->tail; /* only the reader writes it */
	uint64_t start = tail, released = tail, head, mask = r->data_bytes - 1;
	bool corrupt = false;
	long count = 0;
	int err = 0;

	head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
	corrupt = head - tail > r->data_bytes; /* a head the writer never stores */
	while (!corrupt && !err && tail < head && tail - start < r->data_bytes) {
		struct perf_event_header h;

		memcpy(&h, r->data + (tail & mask), sizeof(h));
		if (!whole_record(&h, head - tail)) {
			corrupt = true;
			break;
		}
		err = fn(ctx, record_at(r, tail & mask, h.size), h.size);
		count++;
		tail += h.size;
		if (tail - released >= release_bytes) {
			/* read before the writer may write over it */
			__atomic_store_n(&r->ctl->tail, tail, __ATOMIC_RELEASE);
			released = tail;
		}
	}
	if (corrupt) {
		tail = head; /* what follows cannot be parsed: skipped */
		err = -EBADMSG;
	}
	if (tail != released)
		__atomic_store_n(&r->ctl->tail, tail, __ATOMIC_RELEASE);
	return err ? err : count;
}

long own_ring_read_backward(struct own_ring *r, unsigned int timeout_us, own_ring_record_fn fn,
			    void *ctx)
{
	uint64_t mask = r->data_bytes - 1, head, pos;
	uint64_t *offsets = NULL;
	size_t nr = 0, cap = 0;
	long ret = 0;

	if (!own_ring_close(r, timeout_us)) {
		own_ring_open(r);
		return -ETIME;
	}
	head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
	/* newest first from head: where each record starts */
	for (pos = head; pos - head < r->data_bytes;) {
		struct perf_event_header h;

		memcpy(&h, r->data + (pos & mask), sizeof(h));
		if (!whole_record(&h, r->data_bytes - (pos - head)))
			break; /* never written, or partly written over */
		if (nr == cap) {
			uint64_t *grown = realloc(offsets, (cap = cap ? 2 * cap : 1024) * sizeof(*grown));

			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			offsets = grown;
		}
		offsets[nr++] = pos;
		pos += h.size;
	}
	/* oldest first */
	for (size_t i = nr; !ret && i > 0; i--) {
		struct perf_event_header h;
		uint64_t at = offsets[i - 1] & mask;

		memcpy(&h, r->data + at, sizeof(h));
		ret = fn(ctx, record_at(r, at, h.size), h.size);
	}
	own_ring_open(r);
	free(offsets);
	return ret ? ret : (long)nr;
}

void own_ring_shut(struct own_ring *r)
{
	__atomic_store_n(&r->ctl->closed, 1, __ATOMIC_RELAXED);
}

bool own_ring_wait_writer(struct own_ring *r, unsigned int timeout_us)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (__atomic_load_n(&r->ctl->busy, __ATOMIC_ACQUIRE)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000 >=
		    (long)timeout_us)
			return false;
		sched_yield();
	}
	return true;
}

bool own_ring_close(struct own_ring *r, unsigned int timeout_us)
{
	own_ring_shut(r);
	/* closed before busy is read, as the writer's locked add orders busy
	 * before its read of closed */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return own_ring_wait_writer(r, timeout_us);
}

void own_ring_open(struct own_ring *r)
{
	__atomic_store_n(&r->ctl->closed, 0, __ATOMIC_RELEASE);
}
