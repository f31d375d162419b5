/* staging_ring.h: a single-producer single-consumer ring of perf records between
 * the thread that drains the kernel and the one that writes files; losses counted. */
#ifndef RINGTRACE_STAGING_RING_H
#define RINGTRACE_STAGING_RING_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* What a dropped record stood for: samples, or other records (side-band).
 * Each class has its own pending loss and its own LOST record. */
enum staging_class {
	STAGING_SAMPLES = 0,
	STAGING_OTHER = 1,
	STAGING_CLASSES = 2,
};

/* Builds the LOST record for count items of cls lost since time into buf (at
 * most cap bytes); returns its size (a multiple of 8). The owner knows the
 * record layout; the ring only frames and orders records. */
typedef size_t (*staging_lost_builder)(void *ctx, enum staging_class cls, uint64_t count,
				       uint64_t time, void *buf, size_t cap);

#define STAGING_LOST_MAX 128 /* bytes a LOST record may take */

/* A pending loss, as in Go's profBuf: the low 48 bits of word count the lost
 * items, the high 16 bits change whenever the count goes to or from zero (so a
 * compare-and-swap cannot mistake a new loss for an old one); time is the time
 * of the first loss, written only while the count is zero. */
struct staging_pending {
	_Atomic uint64_t word;
	_Atomic uint64_t time;
};

struct staging_ring {
	uint8_t *data;
	uint64_t size; /* a power of two */
	_Atomic uint64_t head; /* bytes ever written: the producer's, stored with release */
	_Atomic uint64_t tail; /* bytes ever consumed: the consumer's, stored with release */
	struct staging_pending pending[STAGING_CLASSES];
	staging_lost_builder build_lost;
	void *build_ctx;
	/* consumer-private */
	uint64_t peeked;       /* size of the record peek returned from the ring, 0 if synthesized */
	uint8_t *bounce;       /* a record that wraps is copied here */
	uint8_t synthesized[STAGING_LOST_MAX];
	/* producer-private totals */
	uint64_t written_records;
	uint64_t dropped[STAGING_CLASSES]; /* items dropped (weights summed) */
};

/* size: bytes, a power of two, at least 64 KiB. Returns 0 or -1 (bad size,
 * no memory). */
int staging_ring_init(struct staging_ring *r, size_t size, staging_lost_builder build,
		      void *build_ctx);
void staging_ring_free(struct staging_ring *r);

/* Producer. Writes one record (size = its header.size, a multiple of 8) that
 * happened at time and stands for weight items of cls (1 for a sample; n for a
 * LOST record reporting n). Pending losses are written first when there is
 * room for them and the record. If there is no room, the record is dropped
 * and its weight added to its class's pending loss. Returns 1 if written, 0 if
 * dropped. */
int staging_ring_write(struct staging_ring *r, const void *rec, size_t size, uint64_t time,
		       enum staging_class cls, uint64_t weight);

/* Consumer. The next record, or NULL if there is none. When the ring is empty
 * but a loss is pending, a LOST record for it is synthesized and returned. The
 * record stays valid until staging_ring_consume. */
const struct perf_event_header *staging_ring_peek(struct staging_ring *r);
/* Consumer. Releases the record peek returned. */
void staging_ring_consume(struct staging_ring *r);

/* Bytes waiting to be consumed. */
uint64_t staging_ring_used(const struct staging_ring *r);

#endif
