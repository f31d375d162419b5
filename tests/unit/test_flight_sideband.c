/* SPDX-License-Identifier: GPL-2.0-only */
/* test_flight_sideband.c: a flight recording's side-band pruned: the records
 * of a process that exited before the cut go, wherever its EXIT was; those of
 * processes alive, gone after the cut, of the kernel, and of the parents of a
 * process alive stay, in their order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "record/flight_sideband.h"

static void comm(struct byte_buffer *b, uint32_t pid, uint64_t time)
{
	struct perf_sample_id sid = { .pid = pid, .tid = pid, .time = time };

	assert_int_equal(perf_comm_encode(b, RECORDING_SAMPLE_ID_TYPE,
					  &(struct perf_comm){ pid, pid, "proc", false }, &sid), 0);
}

static void task(struct byte_buffer *b, uint32_t type, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct perf_sample_id sid = { .pid = pid, .tid = pid, .time = time };
	struct perf_task t = { .pid = pid, .ppid = ppid, .tid = pid, .ptid = ppid, .time = time };

	assert_int_equal(perf_task_encode(b, RECORDING_SAMPLE_ID_TYPE, type, &t, &sid), 0);
}

static void kernel(struct byte_buffer *b, uint64_t time)
{
	struct perf_sample_id sid = { .pid = (uint32_t)-1, .tid = (uint32_t)-1, .time = time };

	assert_int_equal(perf_kernel_mmap_encode(b, RECORDING_SAMPLE_ID_TYPE, 0xffffffff81000000ULL,
						 &sid), 0);
}

/* The pids of b's records, in order ("k" for the kernel's). */
static void pids_of(const struct byte_buffer *b, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t at = 0; at < b->len;) {
		const struct perf_event_header *h = (const void *)(b->data + at);
		struct perf_sample_id id;
		struct perf_task t;

		if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
			assert_int_equal(perf_task_decode(h, &t), 0);
			n += (size_t)snprintf(out + n, len - n, "%s%u", n ? " " : "", t.pid);
		} else {
			assert_int_equal(perf_sample_id_decode(h, RECORDING_SAMPLE_ID_TYPE, &id), 0);
			if (id.pid == (uint32_t)-1)
				n += (size_t)snprintf(out + n, len - n, "%sk", n ? " " : "");
			else
				n += (size_t)snprintf(out + n, len - n, "%s%u", n ? " " : "", id.pid);
		}
		at += h->size;
	}
}

static void test_gone_processes_dropped(void **state)
{
	struct byte_buffer cpu0 = { 0 }, cpu1 = { 0 };
	struct byte_buffer *bufs[] = { &cpu0, &cpu1 };
	char pids[256];
	long dropped;

	(void)state;
	kernel(&cpu0, 1);
	/* 10 forks 11 and exits at 50; 11 lives on (its exit, on the other
	 * CPU, after the cut): 10 is 11's parent, kept */
	task(&cpu0, PERF_RECORD_FORK, 10, 1, 5);
	comm(&cpu0, 10, 6);
	task(&cpu0, PERF_RECORD_FORK, 11, 10, 7);
	task(&cpu0, PERF_RECORD_EXIT, 10, 1, 50);
	/* 20 forked and gone at 60, its exit on the other CPU */
	task(&cpu0, PERF_RECORD_FORK, 20, 1, 20);
	comm(&cpu0, 20, 21);
	task(&cpu1, PERF_RECORD_EXIT, 20, 1, 60);
	/* 30 gone after the cut */
	task(&cpu1, PERF_RECORD_FORK, 30, 1, 30);
	task(&cpu1, PERF_RECORD_EXIT, 30, 1, 150);
	task(&cpu1, PERF_RECORD_EXIT, 11, 10, 160);
	/* 20 again (a pid reused) after the first one's exit: kept */
	task(&cpu1, PERF_RECORD_FORK, 20, 1, 70);
	dropped = flight_sideband_prune(bufs, 2, 100);
	assert_true(dropped > 0);
	pids_of(&cpu0, pids, sizeof(pids));
	assert_string_equal(pids, "k 10 10 11 10");
	pids_of(&cpu1, pids, sizeof(pids));
	assert_string_equal(pids, "30 30 11 20");
	/* nothing gone before the cut: nothing dropped */
	assert_int_equal(flight_sideband_prune(bufs, 2, 100), 0);
	assert_int_equal(flight_sideband_prune(bufs, 2, 1), 0);
	byte_buffer_free(&cpu0);
	byte_buffer_free(&cpu1);
}

static void test_parents_of_a_process_alive_kept(void **state)
{
	struct byte_buffer cpu0 = { 0 };
	struct byte_buffer *bufs[] = { &cpu0 };
	char pids[256];

	(void)state;
	/* 1 -> 40 -> 41 -> 42: 40 and 41 gone, 42 alive: all kept; 50 gone
	 * with no child: dropped */
	task(&cpu0, PERF_RECORD_FORK, 40, 1, 1);
	task(&cpu0, PERF_RECORD_FORK, 41, 40, 2);
	task(&cpu0, PERF_RECORD_FORK, 42, 41, 3);
	task(&cpu0, PERF_RECORD_FORK, 50, 1, 4);
	task(&cpu0, PERF_RECORD_EXIT, 41, 40, 5);
	task(&cpu0, PERF_RECORD_EXIT, 40, 1, 6);
	task(&cpu0, PERF_RECORD_EXIT, 50, 1, 7);
	assert_true(flight_sideband_prune(bufs, 1, 100) > 0);
	pids_of(&cpu0, pids, sizeof(pids));
	assert_string_equal(pids, "40 41 42 41 40");
	byte_buffer_free(&cpu0);
}

/* A thread of process pid (its FORK, COMM or EXIT). */
static void thread(struct byte_buffer *b, uint32_t type, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_sample_id sid = { .pid = pid, .tid = tid, .time = time };
	struct perf_task t = { .pid = pid, .ppid = pid, .tid = tid, .ptid = pid, .time = time };

	if (type == PERF_RECORD_COMM)
		assert_int_equal(perf_comm_encode(b, RECORDING_SAMPLE_ID_TYPE,
						  &(struct perf_comm){ pid, tid, "worker", false }, &sid),
				 0);
	else
		assert_int_equal(perf_task_encode(b, RECORDING_SAMPLE_ID_TYPE, type, &t, &sid), 0);
}

/* A process that lives on and makes threads: those that exited before the
 * cut leave no record (a rotating recording carried them into every output:
 * 37,000 exits in the seventh of a thread-churning program's). */
static void test_gone_threads_dropped(void **state)
{
	struct byte_buffer cpu0 = { 0 };
	struct byte_buffer *bufs[] = { &cpu0 };
	char pids[256];

	(void)state;
	task(&cpu0, PERF_RECORD_FORK, 60, 1, 1);
	comm(&cpu0, 60, 2);
	thread(&cpu0, PERF_RECORD_FORK, 60, 61, 3);
	thread(&cpu0, PERF_RECORD_COMM, 60, 61, 4);
	thread(&cpu0, PERF_RECORD_EXIT, 60, 61, 5);
	thread(&cpu0, PERF_RECORD_FORK, 60, 62, 6);  /* alive at the cut */
	thread(&cpu0, PERF_RECORD_FORK, 60, 63, 7);  /* gone after it */
	thread(&cpu0, PERF_RECORD_EXIT, 60, 63, 150);
	assert_true(flight_sideband_prune(bufs, 1, 100) > 0);
	pids_of(&cpu0, pids, sizeof(pids));
	assert_string_equal(pids, "60 60 60 60 60"); /* 60's FORK, COMM; 62's, 63's */
	for (size_t at = 0; at < cpu0.len;) {
		const struct perf_event_header *h = (const void *)(cpu0.data + at);
		struct perf_sample_id id;

		assert_int_equal(perf_sample_id_decode(h, RECORDING_SAMPLE_ID_TYPE, &id), 0);
		assert_int_not_equal(id.tid, 61);
		at += h->size;
	}
	assert_int_equal(flight_sideband_prune(bufs, 1, 100), 0);
	byte_buffer_free(&cpu0);
}

/* A CPU whose side-band holds nothing yet (no memory at all) beside one
 * whose gone process is dropped: left empty, nothing read or moved there
 * (a move of 0 bytes from no memory: UBSan, CI 2026-11-27). */
static void test_empty_buffer_beside_gone(void **state)
{
	struct byte_buffer empty = { 0 }, cpu1 = { 0 };
	struct byte_buffer *bufs[] = { &empty, &cpu1 };
	char pids[256];

	(void)state;
	task(&cpu1, PERF_RECORD_FORK, 20, 1, 20);
	task(&cpu1, PERF_RECORD_EXIT, 20, 1, 60);
	task(&cpu1, PERF_RECORD_FORK, 21, 1, 70);
	assert_true(flight_sideband_prune(bufs, 2, 100) > 0);
	assert_null(empty.data);
	assert_int_equal(empty.len, 0);
	pids_of(&cpu1, pids, sizeof(pids));
	assert_string_equal(pids, "21");
	byte_buffer_free(&cpu1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone_processes_dropped),
		cmocka_unit_test(test_parents_of_a_process_alive_kept),
		cmocka_unit_test(test_gone_threads_dropped),
		cmocka_unit_test(test_empty_buffer_beside_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
