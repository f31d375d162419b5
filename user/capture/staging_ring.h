/* SPDX-License-Identifier: GPL-2.0-only */
/* staging_ring.h: a single-producer single-consumer ring of perf records between
 * the thread that drains the kernel and the one that writes files; losses counted.
 * Forward mode drops the newest record when full; overwrite (flight-recorder)
 * mode overwrites the oldest whole records and is read by snapshots. */
#ifndef RINGTRACE_STAGING_RING_H
#define RINGTRACE_STAGING_RING_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* Overwrite mode: items lost while a snapshot held the ring paused. */
struct staging_paused_loss {
	uint64_t count;
	uint64_t time; /* of the first */
	uint64_t seq;  /* the producer's sequence number of the last */
};

enum staging_mode {
	STAGING_FORWARD,   /* full: drop the newest record, count it */
	STAGING_OVERWRITE, /* full: overwrite the oldest records, count them */
};

struct staging_ring {
	enum staging_mode mode;
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
	/* overwrite mode: the producer announces each write in busy and reads
	 * paused; a snapshot sets paused and waits until busy is clear (both
	 * sequentially consistent, so one of them always sees the other). The
	 * fields below are the producer's while the ring is not paused and the
	 * snapshot's while it is. */
	_Atomic int busy;
	_Atomic int paused;      /* 0, or 1 + the parity of the snapshot holding it */
	uint64_t overwritten;    /* records overwritten since the last snapshot */
	uint64_t lost;           /* items lost since the last snapshot... */
	uint64_t lost_time;      /* ...and the time of the first */
	uint64_t last_seq;       /* the producer's sequence number of its last item */
	uint64_t snapshots;
	struct staging_paused_loss paused_lost[2]; /* by the parity of the pausing snapshot */
};

/* What a snapshot of an overwrite ring took, for the period since the
 * previous one: the items the producer numbered up to seq are held in data,
 * were overwritten, or were lost. */
struct staging_snapshot {
	uint8_t *data;        /* the records held, oldest first (mapped: map_len bytes) */
	size_t len;
	size_t map_len;
	uint64_t held;        /* records in data */
	uint64_t overwritten; /* records overwritten by newer ones */
	uint64_t lost;        /* items reported lost to the ring (never written) */
	uint64_t lost_time;   /* the time of the first of those */
	uint64_t seq;         /* the producer's sequence number of the last item */
};

/* size: bytes, a power of two, at least 64 KiB. Returns 0, -EINVAL (bad size),
 * or -ENOMEM. */
int staging_ring_init(struct staging_ring *r, size_t size, staging_lost_builder build,
		      void *build_ctx);
void staging_ring_free(struct staging_ring *r);

/* Like staging_ring_init, in overwrite mode. */
int staging_ring_init_overwrite(struct staging_ring *r, size_t size);

/* Overwrite mode, producer. Writes one record that happened at time, the
 * producer's item number seq, overwriting the oldest whole records as needed.
 * While a snapshot is being taken the record is counted lost instead (as a
 * paused perf ring does). Returns 1 if written, 0 if counted lost. */
int staging_ring_overwrite(struct staging_ring *r, const void *rec, size_t size, uint64_t time,
			   uint64_t seq);
/* Overwrite mode, producer. Notes count items lost before reaching the ring,
 * the first at time, the last numbered seq. */
void staging_ring_overwrite_lost(struct staging_ring *r, uint64_t count, uint64_t time,
				 uint64_t seq);
/* Overwrite mode, any one thread at a time, while the producer runs. Pauses
 * the producer's writes for the time of a copy, takes everything the ring
 * holds and the counts of the period since the previous snapshot, and empties
 * the ring: held + overwritten + lost covers every item numbered since then.
 * With keep, the ring keeps what it holds and its counts go on: the snapshot
 * holds what the previous one held that is not overwritten yet, and its
 * counts cover every item numbered since the start. 0, or -ENOMEM if out of
 * memory (nothing taken). */
int staging_ring_snapshot(struct staging_ring *r, struct staging_snapshot *s, bool keep);
void staging_snapshot_free(struct staging_snapshot *s);

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
