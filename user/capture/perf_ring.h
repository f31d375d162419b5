/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_ring.h: reads the kernel's perf mmap ring buffer of one perf event:
 * forward (data_head loaded with acquire, data_tail stored with release), or
 * an overwrite ring written backward, paused and read from data_head. */
#ifndef RINGTRACE_PERF_RING_H
#define RINGTRACE_PERF_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct perf_ring {
	int fd;
	struct perf_event_mmap_page *meta;
	size_t mmap_size;
	uint8_t *data;
	uint64_t data_size; /* a power of two */
	uint8_t *bounce;    /* a record that wraps past the end is copied here */
};

/* Maps fd's ring: one metadata page and data_pages (a power of two) pages,
 * read-write so that data_tail tells the kernel what was consumed. */
int perf_ring_map(struct perf_ring *r, int fd, size_t data_pages);
void perf_ring_unmap(struct perf_ring *r);

/* Called for each record in order; a non-zero return stops the drain with the
 * records before it consumed. */
typedef int (*perf_ring_record_fn)(void *ctx, const struct perf_event_header *rec);

/* Consumes every record present: (C) load data_head with acquire, read the
 * records, (D) store data_tail with release, after each release_bytes read
 * and at the end. Returns the number of records or
 * a negative errno (-EBADMSG if the ring holds a record of impossible size). */
long perf_ring_drain(struct perf_ring *r, size_t release_bytes, perf_ring_record_fn fn, void *ctx);

/* Maps fd's ring read-only: the kernel then overwrites its oldest records
 * (the event must be opened with write_backward). */
int perf_ring_map_backward(struct perf_ring *r, int fd, size_t data_pages);

/* Reads a backward ring as perf record --overwrite does: pauses the kernel's
 * output (PERF_EVENT_IOC_PAUSE_OUTPUT), walks the records from data_head
 * (newest first) until the ring's size or an unwritten header, resumes, and
 * calls fn on them oldest first. A record the kernel was overwriting is left
 * out. Returns the number of records, or a negative errno. */
long perf_ring_read_backward(struct perf_ring *r, perf_ring_record_fn fn, void *ctx);

/* Bytes written by the kernel and not yet consumed. */
uint64_t perf_ring_pending(const struct perf_ring *r);

#endif
