/* SPDX-License-Identifier: GPL-2.0-only */
/* staging_ring.c: a single-producer single-consumer ring of perf records between
 * the thread that drains the kernel and the one that writes files; losses counted.
 * Forward mode drops the newest record when full; overwrite (flight-recorder)
 * mode overwrites the oldest whole records and is read by snapshots. */
#include "capture/staging_ring.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define COUNT_BITS 48
#define COUNT_MASK ((1ULL << COUNT_BITS) - 1)
#define SEQ_ONE (1ULL << COUNT_BITS)

static int ring_init(struct staging_ring *r, size_t size, enum staging_mode mode,
		     staging_lost_builder build, void *build_ctx)
{
	void *data;

	memset(r, 0, sizeof(*r));
	if (size < 65536 || (size & (size - 1)) || (mode == STAGING_FORWARD && !build))
		return -EINVAL;
	/* kept out of forked children (the workload): copy-on-write faults on
	 * every page would slow the drain exactly when it must keep up. Pages
	 * are touched as the ring first fills, and a forward ring starts again
	 * at its start whenever it is empty, so a recording whose writer keeps
	 * up touches only the pages of its largest burst (a page fault costs
	 * 10-15 us on the project's VM) */
	data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data != MAP_FAILED)
		madvise(data, size, MADV_DONTFORK);
	r->bounce = malloc(65536);
	if (data == MAP_FAILED || !r->bounce) {
		if (data != MAP_FAILED)
			munmap(data, size);
		free(r->bounce);
		r->bounce = NULL;
		return -ENOMEM;
	}
	r->mode = mode;
	r->data = data;
	r->size = size;
	r->build_lost = build;
	r->build_ctx = build_ctx;
	return 0;
}

int staging_ring_init(struct staging_ring *r, size_t size, staging_lost_builder build,
		      void *build_ctx)
{
	return ring_init(r, size, STAGING_FORWARD, build, build_ctx);
}

int staging_ring_init_overwrite(struct staging_ring *r, size_t size)
{
	return ring_init(r, size, STAGING_OVERWRITE, NULL, NULL);
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
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);

	/* read apart, the two may pass each other: a consumer, or a rewind */
	return head > tail ? head - tail : 0;
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

/* Producer, forward mode, the ring found empty at head: both positions move
 * on to the ring's next start, where the next record goes. The consumer
 * stores tail only after reading a record below head, and there is none: it
 * cannot move tail meanwhile. It reads head (acquire) before tail, and tail
 * is stored here before any head at the new place is published: a tail it
 * reads is never older than the head it reads with it, so it never reads
 * from the old position once records are written at the new one. Returns
 * the new head. */
static uint64_t rewind_empty(struct staging_ring *r, uint64_t head)
{
	uint64_t off = head & (r->size - 1);

	if (!off)
		return head;
	head += r->size - off;
	atomic_store_explicit(&r->tail, head, memory_order_release);
	/* an empty ring at the new place, even if no record follows */
	atomic_store_explicit(&r->head, head, memory_order_release);
	return head;
}

int staging_ring_write(struct staging_ring *r, const void *rec, size_t size, uint64_t time,
		       enum staging_class cls, uint64_t weight)
{
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	uint64_t room, need = size;
	uint8_t lost[STAGING_LOST_MAX];

	if (head == tail)
		head = tail = rewind_empty(r, head);
	room = r->size - (head - tail);

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
	/* head before tail: a tail read first could be one the producer's
	 * rewind (rewind_empty) has moved past since, its bytes rewritten */
	uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);

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

/* Overwrite mode. The producer enters a write; returns the pause it found (0
 * if none), in which case it must only count, in that pause's loss. */
static int overwrite_enter(struct staging_ring *r)
{
	atomic_store(&r->busy, 1);
	return atomic_load(&r->paused);
}

static void overwrite_leave(struct staging_ring *r)
{
	atomic_store_explicit(&r->busy, 0, memory_order_release);
}

static void add_loss(uint64_t *count, uint64_t *first_time, uint64_t n, uint64_t time)
{
	if (!*count || time < *first_time)
		*first_time = time;
	*count += n;
}

static void note_paused_loss(struct staging_ring *r, int paused, uint64_t n, uint64_t time,
			     uint64_t seq)
{
	struct staging_paused_loss *l = &r->paused_lost[paused - 1];

	add_loss(&l->count, &l->time, n, time);
	l->seq = seq;
}

int staging_ring_overwrite(struct staging_ring *r, const void *rec, size_t size, uint64_t time,
			   uint64_t seq)
{
	int paused = overwrite_enter(r);
	uint64_t head, tail;

	if (paused || size > r->size / 2 || size < sizeof(struct perf_event_header)) {
		if (paused)
			note_paused_loss(r, paused, 1, time, seq);
		else
			add_loss(&r->lost, &r->lost_time, 1, time);
		if (!paused)
			r->last_seq = seq;
		overwrite_leave(r);
		return 0;
	}
	head = atomic_load_explicit(&r->head, memory_order_relaxed);
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	/* the oldest whole records make room: a header never straddles the
	 * end, records being 8-byte aligned */
	while (r->size - (head - tail) < size) {
		const struct perf_event_header *h =
			(const struct perf_event_header *)(r->data + (tail & (r->size - 1)));

		tail += h->size;
		r->overwritten++;
	}
	atomic_store_explicit(&r->tail, tail, memory_order_relaxed);
	put_bytes(r, head, rec, size);
	atomic_store_explicit(&r->head, head + size, memory_order_release);
	r->written_records++;
	r->last_seq = seq;
	overwrite_leave(r);
	return 1;
}

void staging_ring_overwrite_lost(struct staging_ring *r, uint64_t count, uint64_t time,
				 uint64_t seq)
{
	int paused = overwrite_enter(r);

	if (paused) {
		note_paused_loss(r, paused, count, time, seq);
	} else {
		add_loss(&r->lost, &r->lost_time, count, time);
		r->last_seq = seq;
	}
	overwrite_leave(r);
}

int staging_ring_snapshot(struct staging_ring *r, struct staging_snapshot *s, bool keep)
{
	int parity = (int)(r->snapshots & 1);
	struct staging_paused_loss *before = &r->paused_lost[!parity];
	uint64_t head, tail, off;

	memset(s, 0, sizeof(*s));
	/* mapped before the pause, the size of the ring, and unmapped by
	 * staging_snapshot_free: malloc'd copies this large would stay in the
	 * heap (glibc raises its mmap threshold after the first such free) */
	s->map_len = r->size;
	s->data = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->data == MAP_FAILED) {
		s->data = NULL;
		return -ENOMEM;
	}
	/* pause, then wait out a write in progress: from here until the
	 * release below the ring and its counts are this thread's */
	atomic_store(&r->paused, 1 + parity);
	while (atomic_load(&r->busy))
		sched_yield();
	head = atomic_load_explicit(&r->head, memory_order_relaxed);
	tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	off = tail & (r->size - 1);
	s->len = head - tail;
	if (off + s->len <= r->size) {
		memcpy(s->data, r->data + off, s->len);
	} else {
		memcpy(s->data, r->data + off, r->size - off);
		memcpy(s->data + (r->size - off), r->data, s->len - (r->size - off));
	}
	for (size_t pos = 0; pos < s->len; pos += ((struct perf_event_header *)(s->data + pos))->size)
		s->held++;
	/* what the previous pause turned away came after the previous cut: it
	 * belongs to this period */
	if (before->count) {
		add_loss(&r->lost, &r->lost_time, before->count, before->time);
		if (before->seq > r->last_seq)
			r->last_seq = before->seq;
		memset(before, 0, sizeof(*before));
	}
	s->overwritten = r->overwritten;
	s->lost = r->lost;
	s->lost_time = r->lost_time;
	s->seq = r->last_seq;
	if (!keep) {
		r->overwritten = r->lost = r->lost_time = 0;
		atomic_store_explicit(&r->tail, head, memory_order_relaxed);
	}
	r->snapshots++;
	atomic_store_explicit(&r->paused, 0, memory_order_release);
	return 0;
}

void staging_snapshot_free(struct staging_snapshot *s)
{
	if (s->data)
		munmap(s->data, s->map_len);
	s->data = NULL;
}
