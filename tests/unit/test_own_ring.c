/* SPDX-License-Identifier: GPL-2.0-only */
/* test_own_ring.c: ringtrace's own ring (--transport ring) in user space, the
 * writer the BPF side runs (bpf/own_ring_layout.h) against the loader's
 * reader (user/capture/own_ring.c): records wrap at every alignment, a full
 * ring refuses a record whole, big records go through the slack, a busy or
 * closed ring refuses its writers, records built in place where a slot is
 * given read as written, a writer thread against a reader
 * thread (closing and opening it meanwhile) loses nothing it did not count,
 * and a writer claiming by a plain store publishes nothing once a reader
 * closing with membarrier's barrier has seen it idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>

#include "capture/own_ring.h"
#include "sys/membarrier.h"

struct ring_mem {
	void *element;
	struct rt_ring_control *ctl;
	__u64 *data;
	size_t data_bytes, slack;
	struct own_ring reader;
};

static void ring_new(struct ring_mem *m, size_t data_bytes, size_t slack)
{
	size_t bytes = own_ring_element_bytes(data_bytes, slack);

	assert_int_equal(posix_memalign(&m->element, 4096, bytes), 0);
	memset(m->element, 0, bytes);
	m->ctl = m->element;
	m->data = (__u64 *)((uint8_t *)m->element + RT_RING_CONTROL_BYTES);
	m->data_bytes = data_bytes;
	m->slack = slack;
	assert_int_equal(own_ring_init(&m->reader, m->element, data_bytes), 0);
}

static void ring_delete(struct ring_mem *m)
{
	own_ring_free(&m->reader);
	free(m->element);
}

/* A record of words words: its header, then seq in every word. */
static void make_record(__u64 *rec, __u32 words, __u64 seq)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (__u16)(words * 8) };

	memcpy(rec, &h, sizeof(h));
	for (__u32 i = 1; i < words; i++)
		rec[i] = seq * 1000003 + i;
}

/* A write as the BPF side makes it: claimed, written (backward: over the
 * oldest), released. */
static int put_as(struct ring_mem *m, const __u64 *rec, __u32 bytes, bool backward)
{
	int r = rt_ring_claim(m->ctl, false);

	if (r)
		return r;
	r = backward ? rt_ring_write_backward(m->ctl, m->data, m->data_bytes, m->slack, rec, bytes)
		     : rt_ring_write(m->ctl, m->data, m->data_bytes, m->slack, rec, bytes);
	rt_ring_release(m->ctl, true);
	return r;
}

static int put(struct ring_mem *m, const __u64 *rec, __u32 bytes)
{
	return put_as(m, rec, bytes, false);
}

/* What the reader checks: records in order, each whole. */
struct expect {
	__u64 next_seq;
	long seen;
};

static int check_record(void *ctx, const void *rec, size_t size)
{
	struct expect *e = ctx;
	const __u64 *w = rec;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.size != size || h.type != PERF_RECORD_SAMPLE)
		return -1;
	for (size_t i = 1; i < size / 8; i++)
		if (w[i] != e->next_seq * 1000003 + i)
			return -2;
	e->next_seq++;
	e->seen++;
	return 0;
}

static int skip_record(void *ctx, const void *rec, size_t size)
{
	(void)ctx;
	(void)rec;
	return size == 8 ? 0 : -1;
}

static void test_wraps_at_every_alignment(void **state)
{
	struct ring_mem m;
	__u64 rec[64];

	(void)state;
	ring_new(&m, 4096, 0);
	/* for every start of the record in the ring, sizes up to half of it */
	for (__u32 shift = 0; shift < 4096 / 8; shift++) {
		for (__u32 words = 1; words <= 40; words += 13) {
			struct expect e = { 7, 0 };

			make_record(rec, 1, 0);
			for (__u32 i = 0; i < shift; i++)
				assert_int_equal(put(&m, rec, 8), RT_RING_WRITTEN);
			assert_int_equal(own_ring_drain(&m.reader, 4096, skip_record, NULL), shift);
			make_record(rec, words, 7);
			assert_int_equal(put(&m, rec, words * 8), RT_RING_WRITTEN);
			make_record(rec, 3, 8);
			assert_int_equal(put(&m, rec, 24), RT_RING_WRITTEN);
			assert_int_equal(own_ring_drain(&m.reader, 4096, check_record, &e), 2);
			assert_int_equal(e.next_seq, 9);
			assert_int_equal(own_ring_pending(&m.reader), 0);
		}
	}
	ring_delete(&m);
}

static void test_full_ring_refuses_whole_records(void **state)
{
	struct ring_mem m;
	struct expect e = { 0, 0 };
	__u64 rec[16];
	int written = 0, r;

	(void)state;
	ring_new(&m, 4096, 0);
	for (int i = 0; (r = (make_record(rec, 12, (__u64)i), put(&m, rec, 96))) == RT_RING_WRITTEN; i++)
		written++;
	assert_int_equal(r, RT_RING_FULL);
	assert_int_equal(written, 4096 / 96);
	assert_int_equal(own_ring_drain(&m.reader, 4096, check_record, &e), written);
	assert_int_equal(e.next_seq, written);
	make_record(rec, 12, (__u64)written);
	assert_int_equal(put(&m, rec, 96), RT_RING_WRITTEN);
	ring_delete(&m);
}

static void test_big_records_through_the_slack(void **state)
{
	struct ring_mem m;
	__u64 *rec = malloc(65536);

	(void)state;
	assert_non_null(rec);
	ring_new(&m, 65536, 65536);
	/* records past RT_RING_STORE_MAX_WORDS, across the end at every page */
	for (int i = 0; i < 40; i++) {
		struct expect e = { (__u64)i, 0 };
		__u32 words = RT_RING_STORE_MAX_WORDS + 1 + (__u32)i * 97;

		make_record(rec, words, (__u64)i);
		assert_int_equal(put(&m, rec, words * 8), RT_RING_WRITTEN);
		assert_int_equal(own_ring_drain(&m.reader, 4096, check_record, &e), 1);
	}
	/* more than the slack: refused, never written past it */
	make_record(rec, 8191, 1);
	m.slack = 4096;
	assert_int_equal(put(&m, rec, 8191 * 8), RT_RING_FULL);
	free(rec);
	ring_delete(&m);
}

static void test_busy_and_closed_refuse(void **state)
{
	struct ring_mem m;
	__u64 rec[4];

	(void)state;
	ring_new(&m, 4096, 0);
	make_record(rec, 4, 0);
	/* a writer interrupted mid-write: the one interrupting it is refused */
	assert_int_equal(rt_ring_claim(m.ctl, false), RT_RING_WRITTEN);
	assert_int_equal(put(&m, rec, 32), RT_RING_BUSY);
	assert_int_equal(rt_ring_claim(m.ctl, true), RT_RING_BUSY);
	assert_int_equal(m.ctl->busy, 1);
	rt_ring_release(m.ctl, true);
	/* closed by the reader: refused until opened; close waits for none */
	assert_true(own_ring_close(&m.reader, 1000));
	assert_int_equal(put(&m, rec, 32), RT_RING_CLOSED);
	assert_int_equal(m.ctl->busy, 0);
	assert_int_equal(rt_ring_claim(m.ctl, true), RT_RING_CLOSED);
	assert_int_equal(m.ctl->busy, 0);
	own_ring_open(&m.reader);
	assert_int_equal(put(&m, rec, 32), RT_RING_WRITTEN);
	/* a writer mid-write: close times out, and succeeds once it ends */
	assert_int_equal(rt_ring_claim(m.ctl, false), RT_RING_WRITTEN);
	assert_false(own_ring_close(&m.reader, 2000));
	/* a writer no other can run in the middle of ends its claim by a store */
	rt_ring_release(m.ctl, false);
	assert_int_equal(m.ctl->busy, 0);
	assert_true(own_ring_close(&m.reader, 1000));
	own_ring_open(&m.reader);
	/* ...and may claim by one: busy exactly 1, an interrupting writer refused */
	assert_int_equal(rt_ring_claim(m.ctl, true), RT_RING_WRITTEN);
	assert_int_equal(m.ctl->busy, 1);
	assert_int_equal(put(&m, rec, 32), RT_RING_BUSY);
	assert_int_equal(m.ctl->busy, 1);
	own_ring_shut(&m.reader);
	assert_false(own_ring_wait_writer(&m.reader, 2000));
	rt_ring_release(m.ctl, false);
	assert_true(own_ring_wait_writer(&m.reader, 1000));
	ring_delete(&m);
}

/* A write as the tracepoint program makes it: built in place where the ring
 * gives a slot at head, else written from a copy (a record that would pass
 * the data area's end). Returns whether it was built in place. */
static bool put_in_place(struct ring_mem *m, __u32 words, __u64 seq)
{
	__u64 rec[64];
	long at;

	if (words > sizeof(rec) / sizeof(rec[0])) {
		fail_msg("a record of %u words: more than the test's buffer", words);
		return false;
	}
	assert_int_equal(rt_ring_claim(m->ctl, true), RT_RING_WRITTEN);
	at = rt_ring_slot(m->ctl, m->data_bytes, words * 8);
	if (at >= 0) {
		assert_true((size_t)at + words * 8 <= m->data_bytes);
		make_record((__u64 *)((uint8_t *)m->data + at), words, seq);
		rt_ring_publish(m->ctl, m->ctl->head + words * 8);
	} else {
		make_record(rec, words, seq);
		assert_int_equal(rt_ring_write(m->ctl, m->data, m->data_bytes, m->slack, rec,
					       words * 8),
				 RT_RING_WRITTEN);
	}
	rt_ring_release(m->ctl, false);
	return at >= 0;
}

/* Records built in place read as written, at every alignment: a slot only
 * where the record ends by the data area's end (the others through a copy,
 * as before), and none once the ring is full. */
static void test_slots_in_place(void **state)
{
	struct ring_mem m;
	struct expect e = { 0, 0 };
	__u64 seq = 0;
	long in_place = 0, copied = 0;

	(void)state;
	ring_new(&m, 4096, 512);
	for (int i = 0; i < 20000; i++) {
		__u32 words = 2 + (__u32)(i % 25);

		if (put_in_place(&m, words, seq++))
			in_place++;
		else
			copied++;
		assert_int_equal(own_ring_drain(&m.reader, 4096, check_record, &e), 1);
	}
	assert_int_equal(e.next_seq, seq);
	assert_true(in_place > copied * 10);
	assert_true(copied > 0);
	/* full: no slot, and what the reader has not read is kept whole */
	while (rt_ring_slot(m.ctl, m.data_bytes, 64) >= 0)
		put_in_place(&m, 8, seq++);
	assert_true(m.ctl->head + 64 - m.ctl->tail > m.data_bytes ||
		    (m.ctl->head & (m.data_bytes - 1)) + 64 > m.data_bytes);
	assert_true(own_ring_drain(&m.reader, 4096, check_record, &e) > 0);
	assert_int_equal(e.next_seq, seq);
	ring_delete(&m);
}

/* --overwrite: written backward over the oldest, read (closed) oldest first:
 * exactly the newest records that fit whole, at every alignment, big ones
 * through the slack too. */
static void test_backward_keeps_the_newest(void **state)
{
	static __u64 rec[8192];
	struct ring_mem m;

	(void)state;
	ring_new(&m, 16384, 65536);
	for (__u64 n = 1; n <= 3000; n += 7) {
		struct expect e;
		__u64 held_bytes = 0, first = n;
		__u32 words = 0;
		long got;

		memset(m.element, 0, own_ring_element_bytes(m.data_bytes, m.slack));
		for (__u64 i = 0; i < n; i++) {
			words = 1 + (__u32)((i * 7) % 40) + (i % 97 == 0 ? 700 : 0);
			make_record(rec, words, i);
			assert_int_equal(put_as(&m, rec, words * 8, true), RT_RING_WRITTEN);
		}
		/* the newest records whose bytes fit in the ring */
		for (__u64 i = n; i-- > 0;) {
			__u32 w = 1 + (__u32)((i * 7) % 40) + (i % 97 == 0 ? 700 : 0);

			if (held_bytes + w * 8 > m.data_bytes)
				break;
			held_bytes += w * 8;
			first = i;
		}
		e = (struct expect){ first, 0 };
		got = own_ring_read_backward(&m.reader, 1000, check_record, &e);
		assert_int_equal(got, n - first);
		assert_int_equal(e.next_seq, n);
		/* reading leaves the ring as it was, open */
		assert_int_equal(m.ctl->closed, 0);
	}
	ring_delete(&m);
}

#define THREAD_RECORDS 2000000

struct run {
	struct ring_mem m;
	atomic_bool done;
	long written, refused;
};

static void *writer(void *arg)
{
	struct run *run = arg;
	__u64 rec[64];

	for (__u64 i = 0; i < THREAD_RECORDS; i++) {
		__u32 words = 2 + (__u32)(i % 37);

		make_record(rec, words, i);
		if (put(&run->m, rec, words * 8) == RT_RING_WRITTEN)
			run->written++;
		else
			run->refused++;
	}
	atomic_store(&run->done, true);
	return NULL;
}

/* Like check_record, but records may be missing (refused): only increasing
 * seqs, each record whole. */
static int check_whole(void *ctx, const void *rec, size_t size)
{
	struct expect *e = ctx;
	const __u64 *w = rec;
	__u64 seq;

	if (size < 16)
		return -1;
	seq = (w[1] - 1) / 1000003;
	if (e->seen && seq < e->next_seq)
		return -3;
	for (size_t i = 1; i < size / 8; i++)
		if (w[i] != seq * 1000003 + i)
			return -2;
	e->next_seq = seq + 1;
	e->seen++;
	return 0;
}

static void test_writer_against_reader(void **state)
{
	struct run run = { .done = false };
	struct expect e = { 0, 0 };
	pthread_t t;
	long passes = 0;

	(void)state;
	ring_new(&run.m, 16384, 0);
	assert_int_equal(pthread_create(&t, NULL, writer, &run), 0);
	while (!atomic_load(&run.done)) {
		long n = own_ring_drain(&run.m.reader, 4096, check_whole, &e);

		assert_true(n >= 0);
		/* a snapshot's pause now and then */
		if (++passes % 4096 == 0) {
			while (!own_ring_close(&run.m.reader, 100000))
				;
			own_ring_open(&run.m.reader);
		}
	}
	pthread_join(t, NULL);
	assert_true(own_ring_drain(&run.m.reader, 4096, check_whole, &e) >= 0);
	print_message("%ld written, %ld refused (full or closed), %ld read\n", run.written,
		      run.refused, e.seen);
	assert_int_equal(run.written + run.refused, THREAD_RECORDS);
	assert_int_equal(e.seen, run.written);
	ring_delete(&run.m);
}

/* A writer that claims by a plain store (a tracepoint's program) against a
 * reader that closes with membarrier's barrier between its store of closed
 * and its load of busy: once the wait has seen no write in progress, none
 * is published until the ring is opened. */
#define PLAIN_CLOSES 60

struct plain_run {
	struct ring_mem m;
	atomic_bool done;
	atomic_long tries, claims;
};

static void *plain_writer(void *arg)
{
	struct plain_run *run = arg;
	__u64 rec[8];
	long at;

	make_record(rec, 8, 1);
	while (!atomic_load_explicit(&run->done, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&run->tries, 1, memory_order_relaxed);
		if (rt_ring_claim(run->m.ctl, true) != RT_RING_WRITTEN)
			continue;
		at = rt_ring_slot(run->m.ctl, run->m.data_bytes, sizeof(rec));
		if (at >= 0) {
			memcpy((uint8_t *)run->m.data + at, rec, sizeof(rec));
			rt_ring_publish(run->m.ctl, run->m.ctl->head + sizeof(rec));
		}
		rt_ring_release(run->m.ctl, false);
		atomic_fetch_add_explicit(&run->claims, 1, memory_order_relaxed);
	}
	return NULL;
}

static int drop_record(void *ctx, const void *rec, size_t size)
{
	(void)ctx;
	(void)rec;
	(void)size;
	return 0;
}

static void test_plain_writer_against_membarrier_close(void **state)
{
	struct plain_run run = { .done = false };
	pthread_t t;

	(void)state;
	if (!membarrier_global_offered())
		skip(); /* (the loader then keeps the locked add) */
	ring_new(&run.m, 16384, 0);
	assert_int_equal(pthread_create(&t, NULL, plain_writer, &run), 0);
	for (int i = 0; i < PLAIN_CLOSES; i++) {
		__u64 head;
		long tries;

		/* written meanwhile */
		while (atomic_load(&run.claims) < 1000 * (i + 1))
			assert_true(own_ring_drain(&run.m.reader, 4096, drop_record, NULL) >= 0);
		own_ring_shut(&run.m.reader);
		assert_int_equal(membarrier_global(), 0);
		assert_true(own_ring_wait_writer(&run.m.reader, 1000000));
		head = __atomic_load_n(&run.m.ctl->head, __ATOMIC_ACQUIRE);
		tries = atomic_load(&run.tries);
		/* the writer tries again and again: none gets through */
		while (atomic_load(&run.tries) < tries + 1000)
			sched_yield();
		assert_int_equal(__atomic_load_n(&run.m.ctl->head, __ATOMIC_ACQUIRE), head);
		own_ring_open(&run.m.reader);
	}
	atomic_store(&run.done, true);
	pthread_join(t, NULL);
	ring_delete(&run.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wraps_at_every_alignment),
		cmocka_unit_test(test_full_ring_refuses_whole_records),
		cmocka_unit_test(test_big_records_through_the_slack),
		cmocka_unit_test(test_slots_in_place),
		cmocka_unit_test(test_busy_and_closed_refuse),
		cmocka_unit_test(test_backward_keeps_the_newest),
		cmocka_unit_test(test_writer_against_reader),
		cmocka_unit_test(test_plain_writer_against_membarrier_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
