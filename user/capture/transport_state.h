/* SPDX-License-Identifier: GPL-2.0-only */
/* transport_state.h: a transport's rings and their readers, as transport.c
 * (made, installed, drained) and transport_stop.c (closed at the stop, read
 * for a snapshot) share them. */
#ifndef RINGTRACE_TRANSPORT_STATE_H
#define RINGTRACE_TRANSPORT_STATE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_ring.h"
#include "capture/own_ring.h"
#include "capture/perf_ring.h"
#include "capture/transport.h"

struct ring {
	int map_fd;
	int cpu; /* -1: the single ring */
	struct bpf_ring reader;
};

/* One CPU's perf ring of the perf event array. */
struct perf_output {
	int cpu;
	struct perf_ring ring;
	uint64_t kernel_lost; /* reported by the kernel's LOST records, delivered */
	uint64_t held_lost;   /* a LOST read, waiting for the time of the next record */
	uint64_t last_time;   /* of the last sample read */
	struct transport *owner;
};

/* One CPU's own ring (--transport ring). */
struct own_output {
	int cpu;
	struct own_ring ring;
};

struct transport {
	enum transport_kind kind;
	struct transport_sink sink;
	struct ring *rings; /* ringbuf */
	size_t release_bytes; /* a ring's consumer position is stored this often */
	unsigned int nr_rings;
	struct perf_output *outputs; /* perfbuf */
	unsigned int nr_outputs;
	struct own_output *owns; /* ring */
	unsigned int nr_owns;
	size_t own_data_bytes, own_element_bytes;
	void *own_map; /* the array of rings as mapped here */
	size_t own_map_size;
	struct bpf_ring wakeups; /* the BPF ring the own rings' writers wake the reader by */
	int epoll_fd;
	bool overwrite;
	/* ring, forward: closed with membarrier_global, its tracepoints' and
	 * perf events' writers claim with a plain store (rt_ring_claim) */
	bool plain_claims;
	bool writers_stopped; /* the rings closed at the stop (once) */
	/* the last drain's ring of a CPU that gave the most records (-1: none),
	 * and the fewest any CPU's ring gave, of rings_drained */
	int busiest_cpu;
	uint64_t busiest_records, quietest_records;
	unsigned int rings_drained;
	uint64_t bounce[65536 / 8]; /* an aligned copy of a perf ring's payload */
};

/* Copies the sample a BPF-output PERF_RECORD_SAMPLE carries as its raw
 * payload (u32 size, then the record) into t->bounce, aligned: 0, or
 * -EBADMSG. */
int transport_unwrap_sample(struct transport *t, const struct perf_event_header *rec,
			    struct perf_event_header *inner);

#endif
