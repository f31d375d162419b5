/* test_staging_ring.c: the staging ring under two threads (millions of records,
 * checked in order), wrap-around at every alignment, and its pending LOST records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "staging_ring.h"

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

/* A record straddles the end of the ring at every 8-byte alignment. */
static void test_wrap_at_every_alignment(void **state)
{
	struct staging_ring r;
	uint8_t buf[1024];
	uint64_t seq = 0;

	(void)state;
	assert_int_equal(staging_ring_init(&r, RING_BYTES, build_lost, NULL), 0);
	for (size_t before_end = 8; before_end <= 1008; before_end += 8) {
		uint64_t head = atomic_load(&r.head);
		uint64_t to_boundary = RING_BYTES - (head % RING_BYTES);
		const struct perf_event_header *h;
		uint64_t filler = (to_boundary + RING_BYTES - before_end) % RING_BYTES;

		/* fillers, consumed at once, bring the head to before_end bytes
		 * short of the end */
		while (filler) {
			size_t n = filler > 1024 ? 1024 : filler;
			struct perf_event_header fh = { PERF_RECORD_SAMPLE, 0, (uint16_t)n };

			memset(buf, 0, n);
			fh.size = (uint16_t)n;
			memcpy(buf, &fh, sizeof(fh));
			assert_int_equal(staging_ring_write(&r, buf, n, 1, STAGING_SAMPLES, 1), 1);
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
		h = staging_ring_peek(&r);
		assert_non_null(h);
		assert_int_equal(check_record(h), seq);
		staging_ring_consume(&r);
		assert_null(staging_ring_peek(&r));
	}
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
	assert_int_equal(staging_ring_init(&r, 100000, build_lost, NULL), -1);
	assert_int_equal(staging_ring_init(&r, 4096, build_lost, NULL), -1);
	assert_int_equal(staging_ring_init(&r, RING_BYTES, NULL, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_millions_of_records_in_order),
		cmocka_unit_test(test_slow_consumer_losses_are_exact),
		cmocka_unit_test(test_wrap_at_every_alignment),
		cmocka_unit_test(test_consumer_synthesizes_pending_lost),
		cmocka_unit_test(test_producer_emits_pending_lost_first),
		cmocka_unit_test(test_bad_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
