/* SPDX-License-Identifier: GPL-2.0-only */
/* test_staging_ring.c: the staging ring under two threads (millions of records,
 * checked in order), wrap-around at every alignment, an empty ring starting
 * again at its start, its pending LOST records,
 * and overwrite mode: the newest records kept, exact counts, snapshots taken
 * while the producer runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "capture/staging_ring.h"

#define RING_BYTES (64 * 1024)

/* Test records: header, u64 sequence number, then bytes derived from it. A
 * LOST record is header, u64 count, u64 time of the first loss. */
struct lost_record {
	struct perf_event_header h;
	uint64_t count;
	uint64_t time;
};

static size_t build_lost(void *ctx, enum staging_class cls, uint64_t count, uint64_t time,
			 void *buf, size_t cap)
{
	struct lost_record l = {
		{ cls == STAGING_SAMPLES ? PERF_RECORD_LOST_SAMPLES : PERF_RECORD_LOST, 0,
		  sizeof(l) },
		count, time
	};

	(void)ctx;
	assert_true(cap >= sizeof(l));
	memcpy(buf, &l, sizeof(l));
	return sizeof(l);
}

static uint8_t pattern(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 131 + i * 7 + 1);
}

/* Record seq, of a size derived from seq (16 to 1024 bytes, multiple of 8). */
static size_t make_record(uint8_t *buf, uint64_t seq, size_t size)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)size };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + 8, &seq, 8);
	for (size_t i = 16; i < size; i++)
		buf[i] = pattern(seq, i);
	return size;
}

static size_t size_for(uint64_t seq)
{
	return 16 + ((seq * 2654435761u) % 126) * 8;
}

/* Checks a record's bytes; returns its sequence number. */
static uint64_t check_record(const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint64_t seq;

	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	memcpy(&seq, p + 8, 8);
	assert_int_equal(h->size, size_for(seq));
	for (size_t i = 16; i < h->size; i++)
		if (p[i] != pattern(seq, i))
			fail_msg("record %llu: byte %zu corrupt", (unsigned long long)seq, i);
	return seq;
}

struct run {
	struct staging_ring ring;
	uint64_t records;
	bool slow_consumer;
	_Atomic bool producer_done;
};

static void *producer(void *arg)
{
	struct run *run = arg;
	uint8_t buf[1024];

	for (uint64_t seq = 0; seq < run->records; seq++) {
		size_t n = make_record(buf, seq, size_for(seq));

		staging_ring_write(&run->ring, buf, n, seq + 1, STAGING_SAMPLES, 1);
	}
	atomic_store(&run->producer_done, true);
	return NULL;
}

/* Consumes everything; every sequence number is either read, in order, or
 * counted by a LOST record at the place it would have been. */
static void consume_all(struct run *run, uint64_t *lost_total)
{
	uint64_t expect = 0, spins = 0;

	*lost_total = 0;
	for (;;) {
		/* done is read first: if the producer had finished and peek then
		 * finds nothing, pending losses included, nothing more can come */
		bool done = atomic_load(&run->producer_done);
		const struct perf_event_header *h = staging_ring_peek(&run->ring);

		if (!h) {
			if (done)
				break;
			sched_yield();
			continue;
		}
		if (h->type == PERF_RECORD_LOST_SAMPLES) {
			struct lost_record l;

			memcpy(&l, h, sizeof(l));
			/* the time of the first loss is that of the first missing record */
			assert_int_equal(l.time, expect + 1);
			expect += l.count;
			*lost_total += l.count;
		} else {
			uint64_t seq = check_record(h);

			if (seq != expect)
				fail_msg("record %llu where %llu was expected", (unsigned long long)seq,
					 (unsigned long long)expect);
			expect++;
		}
		staging_ring_consume(&run->ring);
		if (run->slow_consumer && ++spins % 64 == 0)
			for (volatile int i = 0; i < 20000; i++)
				;
	}
	assert_int_equal(expect, run->records);
}

static void two_threads(uint64_t records, bool slow, uint64_t *lost)
{
	struct run run = { .records = records, .slow_consumer = slow };
	pthread_t t;

	assert_int_equal(staging_ring_init(&run.ring, RING_BYTES, build_lost, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, producer, &run), 0);
	consume_all(&run, lost);
	pthread_join(t, NULL);
	assert_int_equal(run.ring.dropped[STAGING_SAMPLES], *lost);
	assert_int_equal(run.ring.written_records + *lost, records);
	staging_ring_free(&run.ring);
}

static void test_millions_of_records_in_order(void **state)
{
	uint64_t lost;

	(void)state;
	two_threads(3000000, false, &lost);
	print_message("3000000 records, %llu dropped and accounted\n", (unsigned long long)lost);
}

static void test_slow_consumer_losses_are_exact(void **state)
{
	uint64_t lost;

	(void)state;
	two_threads(1000000, true, &lost);
	print_message("1000000 records, %llu dropped and accounted\n", (unsigned long long)lost);
	assert_true(lost > 0);
}

/* Writes a filler record of n bytes (a multiple of 8, 8 to 1024). */
static void write_filler(struct staging_ring *r, size_t n)
{
	struct perf_event_header fh = { PERF_RECORD_SAMPLE, 0, (uint16_t)n };
	uint8_t buf[1024];

	memset(buf, 0, n);
	memcpy(buf, &fh, sizeof(fh));
	assert_int_equal(staging_ring_write(r, buf, n, 1, STAGING_SAMPLES, 1), 1);
}

/* A record straddles the end of the ring at every 8-byte alignment. The
 * ring is never empty meanwhile (an empty ring starts again at its start):
 * each filler is consumed once the next is written. */
static void test_wrap_at_every_alignment(void **state)
{
	struct staging_ring r;
	uint8_t buf[1024];
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(staging_ring_init(&r, RING_BYTES, build_lost, NULL), 0);
	write_filler(&r, 8);
	for (size_t before_end = 8; before_end <= 1008; before_end += 8) {
		uint64_t head = atomic_load(&r.head);
		uint64_t to_boundary = RING_BYTES - (head % RING_BYTES);
		const struct perf_event_header *h;
		uint64_t filler = (to_boundary + RING_BYTES - before_end) % RING_BYTES;

		/* fillers bring the head to before_end bytes short of the end */
		while (filler) {
			size_t n = filler > 1024 ? 1024 : filler;

			write_filler(&r, n);
			assert_non_null(staging_ring_peek(&r));
			staging_ring_consume(&r);
			filler -= n;
		}
		assert_int_equal(atomic_load(&r.head) % RING_BYTES, RING_BYTES - before_end);
		seq = 1000 + before_end;
		while (size_for(seq) <= before_end)
			seq++;
		make_record(buf, seq, size_for(seq));
		assert_int_equal(staging_ring_write(&r, buf, size_for(seq), 1, STAGING_SAMPLES, 1), 1);
		/* the last filler, then the record across the end */
		assert_non_null(staging_ring_peek(&r));
		staging_ring_consume(&r);
		h = staging_ring_peek(&r);
		assert_non_null(h);
		assert_int_equal(check_record(h), seq);
		staging_ring_consume(&r);
		assert_null(staging_ring_peek(&r));
		write_filler(&r, 8);
	}
	staging_ring_free(&r);
}

/* A forward ring found empty starts again at its start: a writer that keeps
 * up touches the pages of one burst, not the whole ring. */
static void test_empty_ring_starts_again_at_its_start(void **state)
{
	struct staging_ring r;
	uint8_t buf[1024];

	(void)state;
	assert_int_equal(staging_ring_init(&r, RING_BYTES, build_lost, NULL), 0);
	for (uint64_t seq = 0; seq < 10000; seq++) {
		const struct perf_event_header *h;

		/* bursts of 1 to 4 records, each emptied before the next */
		for (uint64_t i = 0; i <= seq % 4; i++) {
			make_record(buf, seq * 4 + i, size_for(seq * 4 + i));
			assert_int_equal(staging_ring_write(&r, buf, size_for(seq * 4 + i), 1,
							    STAGING_SAMPLES, 1),
					 1);
		}
		h = staging_ring_peek(&r);
		assert_ptr_equal(h, r.data);
		for (uint64_t i = 0; i <= seq % 4; i++, h = staging_ring_peek(&r)) {
			assert_non_null(h);
			assert_int_equal(check_record(h), seq * 4 + i);
			assert_true((const uint8_t *)h + h->size <= r.data + 4 * 1024);
			staging_ring_consume(&r);
		}
		assert_null(h);
		assert_int_equal(staging_ring_used(&r), 0);
	}
	assert_int_equal(r.written_records, 25000);
	assert_int_equal(r.dropped[STAGING_SAMPLES], 0);
	staging_ring_free(&r);
}

static size_t fill_until_full(struct staging_ring *r, uint64_t *seq)
{
	uint8_t buf[1024];
	size_t written = 0;

	for (;; (*seq)++) {
		make_record(buf, *seq, size_for(*seq));
		if (!staging_ring_write(r, buf, size_for(*seq), *seq + 1, STAGING_SAMPLES, 1))
			return written;
		written++;
	}
}

/* Full: the newest records are dropped; once the consumer empties the ring it
 * gets a synthesized LOST with their count and the time of the first. */
static void test_consumer_synthesizes_pending_lost(void **state)
{
	struct staging_ring r;
	uint8_t buf[1024];
	uint64_t seq = 0, first_dropped;
	size_t written, n = 0;
	const struct perf_event_header *h;
	struct lost_record l;

	(void)state;
	assert_int_equal(staging_ring_init(&r, RING_BYTES, build_lost, NULL), 0);
	written = fill_until_full(&r, &seq);
	first_dropped = seq;
	for (int i = 1; i < 5; i++) { /* four more dropped */
		make_record(buf, seq + i, 1024);
		assert_int_equal(staging_ring_write(&r, buf, 1024, seq + i + 1, STAGING_SAMPLES, 1), 0);
	}
	assert_int_equal(r.dropped[STAGING_SAMPLES], 5);
	while ((h = staging_ring_peek(&r)) && h->type == PERF_RECORD_SAMPLE) {
		check_record(h);
		staging_ring_consume(&r);
		n++;
	}
	assert_int_equal(n, written);
	assert_non_null(h);
	assert_int_equal(h->type, PERF_RECORD_LOST_SAMPLES);
	memcpy(&l, h, sizeof(l));
	assert_int_equal(l.count, 5);
	assert_int_equal(l.time, first_dropped + 1);
	staging_ring_consume(&r);
	assert_null(staging_ring_peek(&r));
	staging_ring_free(&r);
}

/* Full, then room again: the producer writes the pending LOST, then the new
 * record; each class of loss gets its own record. */
static void test_producer_emits_pending_lost_first(void **state)
{
	struct staging_ring r;
	uint8_t buf[1024];
	uint64_t seq = 0;
	const struct perf_event_header *h;
	struct lost_record l;
	struct perf_event_header other = { PERF_RECORD_COMM, 0, 64 };
	int samples_lost = 0, other_lost = 0;

	(void)state;
	assert_int_equal(staging_ring_init(&r, RING_BYTES, build_lost, NULL), 0);
	fill_until_full(&r, &seq); /* drops record seq, at time seq + 1 */
	make_record(buf, seq, 1024);
	assert_int_equal(staging_ring_write(&r, buf, 1024, 77, STAGING_SAMPLES, 3), 0);
	memset(buf, 0, 64);
	memcpy(buf, &other, sizeof(other));
	assert_int_equal(staging_ring_write(&r, buf, 64, 88, STAGING_OTHER, 1), 0);
	/* free a third of the ring */
	for (int i = 0; i < 40; i++) {
		assert_non_null(staging_ring_peek(&r));
		staging_ring_consume(&r);
	}
	make_record(buf, 999999, size_for(999999));
	assert_int_equal(staging_ring_write(&r, buf, size_for(999999), 99, STAGING_SAMPLES, 1), 1);
	while ((h = staging_ring_peek(&r))) {
		if (h->type == PERF_RECORD_LOST_SAMPLES || h->type == PERF_RECORD_LOST) {
			memcpy(&l, h, sizeof(l));
			if (h->type == PERF_RECORD_LOST_SAMPLES) {
				/* one record and a LOST of three, since the first */
				assert_int_equal(l.count, 4);
				assert_int_equal(l.time, seq + 1);
				samples_lost++;
			} else {
				assert_int_equal(l.count, 1);
				assert_int_equal(l.time, 88);
				other_lost++;
			}
		} else if (samples_lost) {
			/* after the LOST records comes the record that made room */
			assert_int_equal(check_record(h), 999999);
		}
		staging_ring_consume(&r);
	}
	assert_int_equal(samples_lost, 1);
	assert_int_equal(other_lost, 1);
	staging_ring_free(&r);
}

static void test_bad_sizes(void **state)
{
	struct staging_ring r;

	(void)state;
	assert_int_equal(staging_ring_init(&r, 100000, build_lost, NULL), -EINVAL);
	assert_int_equal(staging_ring_init(&r, 4096, build_lost, NULL), -EINVAL);
	assert_int_equal(staging_ring_init(&r, RING_BYTES, NULL, NULL), -EINVAL);
}

/* Checks a snapshot: whole records, consecutive sequence numbers ending at
 * the snapshot's seq, none before first_seq; returns the first one held. */
static uint64_t check_snapshot(const struct staging_snapshot *snap, uint64_t first_seq)
{
	uint64_t expect = 0, count = 0, first = 0;
	size_t pos = 0;

	while (pos < snap->len) {
		const struct perf_event_header *h = (const void *)(snap->data + pos);
		uint64_t seq = check_record(h);

		if (!count)
			first = seq;
		else
			assert_int_equal(seq, expect);
		assert_true(seq >= first_seq);
		expect = seq + 1;
		count++;
		pos += h->size;
	}
	assert_int_equal(pos, snap->len);
	assert_int_equal(count, snap->held);
	return first;
}

/* A ring far smaller than what is written keeps exactly the newest records
 * that fit, whatever the alignment of the wrap, and counts every other one
 * as overwritten. */
static void test_overwrite_keeps_newest_at_every_alignment(void **state)
{
	static uint8_t buf[2048];

	(void)state;
	for (uint64_t start = 0; start < 64; start++) {
		struct staging_ring r;
		struct staging_snapshot snap;
		uint64_t first = start * 5 + 1, last = first + 700 + start * 3, bytes = 0;
		uint64_t expect_held = 0;

		assert_int_equal(staging_ring_init_overwrite(&r, RING_BYTES), 0);
		for (uint64_t seq = first; seq <= last; seq++) {
			make_record(buf, seq, size_for(seq));
			assert_int_equal(staging_ring_overwrite(&r, buf, size_for(seq), seq * 10, seq), 1);
		}
		/* the newest records whose sizes fit in the ring */
		for (uint64_t seq = last; seq >= first && bytes + size_for(seq) <= RING_BYTES; seq--) {
			bytes += size_for(seq);
			expect_held++;
		}
		assert_int_equal(staging_ring_snapshot(&r, &snap, false), 0);
		assert_int_equal(snap.held, expect_held);
		assert_int_equal(check_snapshot(&snap, first) + snap.held - 1, last);
		assert_int_equal(snap.seq, last);
		assert_int_equal(snap.held + snap.overwritten + snap.lost, last - first + 1);
		assert_int_equal(snap.lost, 0);
		staging_snapshot_free(&snap);
		/* the ring is empty after a snapshot; the next period starts at 0 */
		assert_int_equal(staging_ring_snapshot(&r, &snap, false), 0);
		assert_int_equal(snap.held + snap.overwritten + snap.lost, 0);
		assert_int_equal(snap.seq, last);
		staging_snapshot_free(&snap);
		staging_ring_free(&r);
	}
}

/* Snapshots that keep: each holds the newest records that fit, those of the
 * snapshot before it included while not overwritten, and counts every record
 * since the start (export -g cuts its windows out of them). */
static void test_overwrite_snapshots_that_keep(void **state)
{
	static uint8_t buf[2048];
	struct staging_ring r;
	struct staging_snapshot snap;
	uint64_t held_first;

	(void)state;
	assert_int_equal(staging_ring_init_overwrite(&r, RING_BYTES), 0);
	for (uint64_t seq = 1; seq <= 10; seq++) {
		make_record(buf, seq, size_for(seq));
		assert_int_equal(staging_ring_overwrite(&r, buf, size_for(seq), seq * 10, seq), 1);
	}
	assert_int_equal(staging_ring_snapshot(&r, &snap, true), 0);
	assert_int_equal(snap.held, 10);
	assert_int_equal(check_snapshot(&snap, 1), 1);
	staging_snapshot_free(&snap);
	/* the same ten again, and five more */
	for (uint64_t seq = 11; seq <= 15; seq++) {
		make_record(buf, seq, size_for(seq));
		assert_int_equal(staging_ring_overwrite(&r, buf, size_for(seq), seq * 10, seq), 1);
	}
	assert_int_equal(staging_ring_snapshot(&r, &snap, true), 0);
	assert_int_equal(snap.held, 15);
	assert_int_equal(check_snapshot(&snap, 1), 1);
	assert_int_equal(snap.held + snap.overwritten + snap.lost, 15);
	staging_snapshot_free(&snap);
	/* many more: the oldest overwritten, the counts still from the start */
	for (uint64_t seq = 16; seq <= 900; seq++) {
		make_record(buf, seq, size_for(seq));
		assert_int_equal(staging_ring_overwrite(&r, buf, size_for(seq), seq * 10, seq), 1);
	}
	assert_int_equal(staging_ring_snapshot(&r, &snap, true), 0);
	held_first = 900 - snap.held + 1;
	assert_int_equal(check_snapshot(&snap, held_first), held_first);
	assert_int_equal(snap.seq, 900);
	assert_int_equal(snap.held + snap.overwritten + snap.lost, 900);
	staging_snapshot_free(&snap);
	/* and a snapshot that empties the ring after them takes them all */
	assert_int_equal(staging_ring_snapshot(&r, &snap, false), 0);
	assert_int_equal(check_snapshot(&snap, held_first), held_first);
	staging_snapshot_free(&snap);
	staging_ring_free(&r);
}

/* Items lost before the ring and records too large for it are counted lost,
 * with the time of the first, in the period they belong to. */
static void test_overwrite_counts_losses_and_sizes(void **state)
{
	static uint8_t buf[65536];
	struct staging_ring r;
	struct staging_snapshot snap;

	(void)state;
	assert_int_equal(staging_ring_init_overwrite(&r, RING_BYTES), 0);
	make_record(buf, 1, size_for(1));
	assert_int_equal(staging_ring_overwrite(&r, buf, size_for(1), 100, 1), 1);
	staging_ring_overwrite_lost(&r, 5, 200, 6);
	make_record(buf, 7, 40000);
	((struct perf_event_header *)buf)->size = 40000;
	assert_int_equal(staging_ring_overwrite(&r, buf, 40000, 300, 7), 0);
	make_record(buf, 8, size_for(8));
	assert_int_equal(staging_ring_overwrite(&r, buf, size_for(8), 400, 8), 1);
	assert_int_equal(staging_ring_snapshot(&r, &snap, false), 0);
	assert_int_equal(snap.held, 2);
	assert_int_equal(snap.lost, 6);
	assert_int_equal(snap.lost_time, 200);
	assert_int_equal(snap.overwritten, 0);
	assert_int_equal(snap.seq, 8);
	staging_snapshot_free(&snap);
	staging_ring_free(&r);
}

struct overwrite_run {
	struct staging_ring ring;
	uint64_t records;
	_Atomic bool done;
};

/* Writes records 1..records; every 97th item is reported lost instead. */
static void *overwrite_producer(void *arg)
{
	struct overwrite_run *run = arg;
	static uint8_t buf[2048];

	for (uint64_t seq = 1; seq <= run->records; seq++) {
		if (seq % 97 == 0) {
			staging_ring_overwrite_lost(&run->ring, 1, seq, seq);
			continue;
		}
		make_record(buf, seq, size_for(seq));
		staging_ring_overwrite(&run->ring, buf, size_for(seq), seq, seq);
	}
	atomic_store(&run->done, true);
	return NULL;
}

/* Snapshots taken from another thread while the producer writes: each holds
 * whole, uncorrupted records with consecutive numbers (but for the losses)
 * ending at its cut, and over all of them held + overwritten + lost is every
 * item, period by period. */
static void test_overwrite_snapshots_while_producing(void **state)
{
	struct overwrite_run run = { .records = 2000000 };
	uint64_t prev_seq = 0, total = 0, snapshots = 0, held = 0;
	pthread_t t;
	bool last = false;

	(void)state;
	assert_int_equal(staging_ring_init_overwrite(&run.ring, RING_BYTES), 0);
	assert_int_equal(pthread_create(&t, NULL, overwrite_producer, &run), 0);
	while (!last) {
		struct staging_snapshot snap;
		const uint8_t *p;
		uint64_t prev = 0;

		last = atomic_load(&run.done);
		assert_int_equal(staging_ring_snapshot(&run.ring, &snap, false), 0);
		assert_true(snap.seq >= prev_seq);
		assert_int_equal(snap.held + snap.overwritten + snap.lost, snap.seq - prev_seq);
		/* held records: in order, after the previous cut, up to this one */
		for (p = snap.data; p < snap.data + snap.len; p += ((const struct perf_event_header *)p)->size) {
			uint64_t seq = check_record((const void *)p);

			assert_true(seq > prev_seq && seq <= snap.seq);
			if (prev)
				assert_true(seq == prev + 1 || (seq == prev + 2 && (prev + 1) % 97 == 0));
			prev = seq;
		}
		if (snap.held && snap.seq % 97 != 0)
			assert_int_equal(prev, snap.seq);
		total += snap.held + snap.overwritten + snap.lost;
		held += snap.held;
		prev_seq = snap.seq;
		snapshots++;
		staging_snapshot_free(&snap);
		sched_yield();
	}
	pthread_join(t, NULL);
	assert_int_equal(prev_seq, run.records);
	assert_int_equal(total, run.records);
	assert_true(snapshots > 1);
	assert_true(held > 0);
	staging_ring_free(&run.ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_millions_of_records_in_order),
		cmocka_unit_test(test_slow_consumer_losses_are_exact),
		cmocka_unit_test(test_wrap_at_every_alignment),
		cmocka_unit_test(test_empty_ring_starts_again_at_its_start),
		cmocka_unit_test(test_consumer_synthesizes_pending_lost),
		cmocka_unit_test(test_producer_emits_pending_lost_first),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_overwrite_keeps_newest_at_every_alignment),
		cmocka_unit_test(test_overwrite_snapshots_that_keep),
		cmocka_unit_test(test_overwrite_counts_losses_and_sizes),
		cmocka_unit_test(test_overwrite_snapshots_while_producing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
