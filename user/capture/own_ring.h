/* SPDX-License-Identifier: GPL-2.0-only */
/* own_ring.h: reads one CPU's ring of ringtrace's own transport (--transport
 * ring, bpf/own_ring_layout.h) through the loader's mapping of the BPF array: the
 * records between tail and head, tail stored in steps; closes the ring to its
 * writers for a snapshot or the stop. */
#ifndef RINGTRACE_OWN_RING_H
#define RINGTRACE_OWN_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "own_ring_layout.h"

struct own_ring {
	struct rt_ring_control *ctl;
	const uint8_t *data;
	size_t data_bytes; /* a power of two */
	uint64_t *bounce;  /* a record that wraps, put together */
};

/* One CPU's element of the array: the control page, data_bytes and slack
 * bytes, in whole pages (each CPU's control page starts a page). */
size_t own_ring_element_bytes(size_t data_bytes, size_t slack);
/* The ring in element (mapped), of data_bytes. -ENOMEM if memory ran out. */
int own_ring_init(struct own_ring *r, void *element, size_t data_bytes);
void own_ring_free(struct own_ring *r);

/* Called with each record's bytes (8-aligned), in order; a non-zero return
 * stops the drain there (that record consumed) and is returned. */
typedef int (*own_ring_record_fn)(void *ctx, const void *rec, size_t size);

/* Consumes the records written (at most a ring's worth): head loaded with
 * acquire, the records read, tail stored with release every release_bytes
 * and at the end. Returns the records consumed, the callback's non-zero
 * return, or -EBADMSG if a record's header is not one the writer writes (the
 * rest is then skipped). */
long own_ring_drain(struct own_ring *r, size_t release_bytes, own_ring_record_fn fn, void *ctx);
/* --overwrite (a ring written backward): closes the ring, waiting up to
 * timeout_us for a write in progress, hands fn the records it holds, oldest
 * first (the newest starts at head; the oldest, partly written over, is left
 * out), and opens it again. Returns the records, -ETIME if a write did not
 * end, -ENOMEM, or fn's non-zero return. */
long own_ring_read_backward(struct own_ring *r, unsigned int timeout_us, own_ring_record_fn fn,
			    void *ctx);
/* Bytes written and not yet consumed. */
uint64_t own_ring_pending(const struct own_ring *r);
/* Closes the ring to its writers (each write tried meanwhile is counted
 * lost) and waits for one in progress to end, up to timeout_us; whether it
 * did. own_ring_open lets them write again. For writers that claim the ring
 * with a locked add (rt_ring_claim, not plain). */
bool own_ring_close(struct own_ring *r, unsigned int timeout_us);
/* The same in two steps, for rings whose writers may claim with a plain
 * store: shut, then a barrier on every CPU (membarrier_global, once for all
 * the rings shut), then the wait for a write in progress, up to timeout_us. */
void own_ring_shut(struct own_ring *r);
bool own_ring_wait_writer(struct own_ring *r, unsigned int timeout_us);
void own_ring_open(struct own_ring *r);

#endif
