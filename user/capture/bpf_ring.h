/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_ring.h: reads a BPF ring buffer (BPF_MAP_TYPE_RINGBUF) from user space:
 * the records between its consumer and producer positions, released in batches. */
#ifndef RINGTRACE_BPF_RING_H
#define RINGTRACE_BPF_RING_H

#include <stddef.h>
#include <stdint.h>

struct bpf_ring {
	int map_fd;
	unsigned long *consumer_pos;       /* its page, mapped read-write */
	const unsigned long *producer_pos; /* its page, then the data twice, read-only */
	const uint8_t *data;
	size_t data_size; /* a power of two */
	size_t page_size;
};

/* Maps the ring of map_fd, data_size bytes (the map's max_entries). 0, or a
 * negative errno. */
int bpf_ring_map(struct bpf_ring *r, int map_fd, size_t data_size);
void bpf_ring_unmap(struct bpf_ring *r);

/* Called with each committed record's bytes, in order; a non-zero return
 * stops the drain there (that record consumed) and is returned. */
typedef int (*bpf_ring_record_fn)(void *ctx, const void *rec, size_t size);

/* Consumes the committed records (up to the first one still being written):
 * the producer position is loaded with acquire, the records read, and the
 * consumer position stored with release once per release_bytes consumed and
 * at the end, not after every record as libbpf 1.1's ring_buffer__consume
 * does: each such store takes the cache line a BPF program on another CPU
 * reads on its next reserve. Returns the records consumed or the callback's
 * non-zero return. */
long bpf_ring_drain(struct bpf_ring *r, size_t release_bytes, bpf_ring_record_fn fn, void *ctx);

/* Bytes written and not yet consumed. */
uint64_t bpf_ring_pending(const struct bpf_ring *r);

#endif
