/* staging_ring.c: a single-producer single-consumer ring of perf records between
 * the thread that drains the kernel and the one that writes files; losses counted. */
#include "staging_ring.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define COUNT_BITS 48
#define COUNT_MASK ((1ULL << COUNT_BITS) - 1)
#define SEQ_ONE (1ULL << COUNT_BITS)

int staging_ring_init(struct staging_ring *r, size_t size, staging_lost_builder build,
		      void *build_ctx)
{
	void *data;

	memset(r, 0, sizeof(*r));
	if (size < 65536 || (size & (size - 1)) || !build)
		return -1;
	/* populated now, and kept out of forked children (the workload): page
	 * faults, copy-on-write ones included, would slow the drain exactly
	 * when it must keep up */
	data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		    -1, 0);
	if (data != MAP_FAILED)
		madvise(data, size, MADV_DONTFORK);
	r->bounce = malloc(65536);
	if (data == MAP_FAILED || !r->bounce) {
		if (data != MAP_FAILED)
			munmap(data, size);
		free(r->bounce);
		r->bounce = NULL;
		return -1;
	}
	r->data = data;
	r->size = size;
	r->build_lost = build;
	r->build_ctx = build_ctx;
	return 0;
}

void staging_ring_free(struct staging_ring *r)
{
	if (r->data)
		munmap(r->data, r->size);
	free(r->bounce);
	r->data = r->bounce = NULL;
}

uint64_t staging_ring_used(const struct staging_ring *r)
{
	return atomic_load_explicit(&r->head, memory_order_acquire) -
	       atomic_load_explicit(&r->tail, memory_order_acquire);
}

/* Copies len bytes to ring position pos, wrapping at the end. */
static void put_bytes(struct staging_ring *r, uint64_t pos, const void *src, size_t len)
{
	uint64_t off = pos & (r->size - 1);
	size_t first = r->size - off < len ? (size_t)(r->size - off) : len;

	memcpy(r->data + off, src, first);
	if (first < len)
		memcpy(r->data, (const uint8_t *)src + first, len - first);
}

/* Adds weight items to a class's pending loss (producer only). */
static void add_pending(struct staging_pending *p, uint64_t weight, uint64_t time)
{
	uint64_t old = atomic_load_explicit(&p->word, memory_order_acquire), next;

	do {
		uint64_t count = old & COUNT_MASK;

		if (!count) {
			/* a new pending loss: its time is written before its count
			 * makes it visible, and only while the count is zero */
			atomic_store_explicit(&p->time, time, memory_order_relaxed);
			next = (old & ~COUNT_MASK) + SEQ_ONE + (weight & COUNT_MASK);
		} else {
			count = count + weight > COUNT_MASK ? COUNT_MASK : count + weight;
			next = (old & ~COUNT_MASK) | count;
		}
	} while (!atomic_compare_exchange_weak_explicit(&p->word, &old, next, memory_order_release,
							 memory_order_acquire));
}

/* Producer: takes a class's pending loss if there is one: returns the count
 * and sets *time, or 0 if nothing was pending or the consumer took it first. */
static uint64_t take_pending(struct staging_pending *p, uint64_t *time)
{
	uint64_t old = atomic_load_explicit(&p->word, memory_order_acquire);

	while (old & COUNT_MASK) {
		uint64_t t = atomic_load_explicit(&p->time, memory_order_relaxed);

		if (atomic_compare_exchange_weak_explicit(&p->word, &old,
							  (old & ~COUNT_MASK) + SEQ_ONE,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			*time = t;
			return old & COUNT_MASK;
		}
	}
	return 0;
}

int staging_ring_write(struct staging_ring *r, const void *rec, size_t size, uint64_t time,
		       enum staging_class cls, uint64_t weight)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint64_t room = r->size - (head - tail), need = size;
	uint8_t lost[STAGING_LOST_MAX];

	for (int c = 0; c < STAGING_CLASSES; c++)
		if (atomic_load_explicit(&r->pending[c].word, memory_order_acquire) & COUNT_MASK)
			need += STAGING_LOST_MAX;
	if (need > room || size > r->size / 2) {
		add_pending(&r->pending[cls], weight, time);
		r->dropped[cls] += weight;
		return 0;
	}
	/* room for the pending losses and the record: the losses go first */
	for (int c = 0; c < STAGING_CLASSES; c++) {
		uint64_t first, count = take_pending(&r->pending[c], &first);
		size_t n;

		if (!count)
			continue;
		n = r->build_lost(r->build_ctx, (enum staging_class)c, count, first, lost,
				  sizeof(lost));
		put_bytes(r, head, lost, n);
		head += n;
	}
	put_bytes(r, head, rec, size);
	head += size;
	r->written_records++;
	/* the records are in place before the consumer can see them */
	atomic_store_explicit(&r->head, head, memory_order_release);
	return 1;
}

/* Consumer: takes a class's pending loss only while the ring is still empty at
 * tail. The pending word is read before head: a producer that took an older
 * loss and wrote records, then started this one, changed the word after
 * publishing those records, so they are seen here and come first. */
static uint64_t take_pending_if_empty(struct staging_ring *r, struct staging_pending *p,
				      uint64_t tail, uint64_t *time)
{
	uint64_t old = atomic_load_explicit(&p->word, memory_order_acquire);

	while (old & COUNT_MASK) {
		uint64_t t = atomic_load_explicit(&p->time, memory_order_relaxed);

		if (atomic_load_explicit(&r->head, memory_order_acquire) != tail)
			return 0;
		if (atomic_compare_exchange_weak_explicit(&p->word, &old,
							  (old & ~COUNT_MASK) + SEQ_ONE,
							  memory_order_acq_rel,
							  memory_order_acquire)) {
			*time = t;
			return old & COUNT_MASK;
		}
	}
	return 0;
}

const struct perf_event_header *staging_ring_peek(struct staging_ring *r)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	if (tail < head) {
		uint64_t off = tail & (r->size - 1);
		struct perf_event_header h;

		/* records are 8-byte aligned and the size a multiple of 8: a
		 * header never straddles the end */
		memcpy(&h, r->data + off, sizeof(h));
		r->peeked = h.size;
		if (off + h.size <= r->size)
			return (const struct perf_event_header *)(r->data + off);
		memcpy(r->bounce, r->data + off, r->size - off);
		memcpy(r->bounce + (r->size - off), r->data, h.size - (r->size - off));
		return (const struct perf_event_header *)r->bounce;
	}
	/* empty: a pending loss becomes a record here (profBuf's reader side) */
	for (int c = 0; c < STAGING_CLASSES; c++) {
		uint64_t first, count = take_pending_if_empty(r, &r->pending[c], tail, &first);

		if (count) {
			r->build_lost(r->build_ctx, (enum staging_class)c, count, first, r->synthesized,
				      sizeof(r->synthesized));
			r->peeked = 0;
			return (const struct perf_event_header *)r->synthesized;
		}
	}
	return NULL;
}

void staging_ring_consume(struct staging_ring *r)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (!r->peeked)
		return;
	/* the record was read before the producer may reuse its bytes */
	atomic_store_explicit(&r->tail, tail + r->peeked, memory_order_release);
	r->peeked = 0;
}
