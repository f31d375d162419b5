/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_state.h: what the flight recorder's parts share: its state, one
 * CPU's, one CPU's take of a snapshot; the sink (flight_recorder.c) and the
 * snapshots it writes (flight_snapshot.c). */
#ifndef RINGTRACE_FLIGHT_STATE_H
#define RINGTRACE_FLIGHT_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "capture/record_sink.h"
#include "capture/staging_ring.h"
#include "lib/byte_buffer.h"
#include "record/flight_recorder.h"
#include "sample_record.h"

#define STREAM_BUFFER_BYTES (256 * 1024)

/* One CPU: its overwrite staging ring (ringbuf), side-band so far, and where
 * the previous snapshot cut its numbering. */
struct flight_cpu {
	int cpu;
	struct staging_ring staging;
	uint64_t seq;              /* drain thread: items numbered so far (64-bit) */
	uint64_t lost_ahead;       /* drain thread: losses a trigger took before their LOST record */
	struct byte_buffer sideband; /* under the recorder's lock */
	uint64_t cut_seq;          /* snapshot thread: the previous snapshot's cut */
	uint64_t cut_bpf_lost;     /* perfbuf: the BPF side's losses at that cut */
	struct flight_accounting totals; /* over all snapshots */
};

struct flight_recorder {
	struct record_sink base;
	struct flight_cpu *cpus;
	unsigned int nr;
	int *slot_of_cpu;
	int nr_possible;
	bool kernel_rings;         /* perfbuf, ring: backward rings (the kernel's, ours) hold the samples */
	const char *transport;     /* its name (the config's: a string that lives) */
	struct flight_recorder_ops ops;
	int dirfd;
	const char *dirpath;
	unsigned int max_snapshots; /* 0: no limit */
	bool overlap;               /* snapshots overlap: nothing is taken from the rings */
	uint64_t sample_lost_id;
	pthread_mutex_t lock;       /* side-band buffers, the trigger state */
	pthread_cond_t wake;
	pthread_t thread;
	bool running;
	bool stopping;
	unsigned int requested;     /* triggers taken (coalesced while one is written) */
	unsigned int written;       /* snapshots written */
	uint64_t ignored;           /* triggers after --max-snapshots */
	char reason[128];           /* of the pending trigger */
	uint64_t since_ns;          /* its window's start: samples older are not written (0: all) */
	uint64_t mismatches;        /* periods whose counts did not add up */
	uint64_t lost_said;         /* overlap: the samples lost when last said */
	uint64_t lost_said_ns;      /* overlap: when (CLOCK_MONOTONIC), 0: never */
	_Atomic int error;          /* a snapshot that could not be written */
	char error_text[512];
};

/* Adds one period's accounting to a sum. */
static inline void accounting_add(struct flight_accounting *sum, const struct flight_accounting *a)
{
	sum->produced += a->produced;
	sum->held += a->held;
	sum->overwritten += a->overwritten;
	sum->lost += a->lost;
}

/* One CPU's part of a snapshot being written. */
struct cpu_take {
	struct staging_snapshot held; /* records held, oldest first */
	struct byte_buffer kernel;    /* perfbuf: the same, read from the kernel's ring */
	struct byte_buffer sideband;  /* a copy of the side-band so far */
	struct flight_accounting counts;
	uint64_t older;               /* held, but older than the window asked for: not written */
	uint64_t lost_time;
	uint64_t newest_seq;          /* perfbuf: of the newest sample read */
	uint64_t bpf_produced;        /* perfbuf: the BPF side's counts before the pause */
	uint64_t bpf_lost;
};

/* A sample's 64-bit sequence number from the low 32 bits it carries, next to
 * near, a number within 2^31 of it. */
static inline uint64_t sample_seq(const void *rec, uint64_t near)
{
	uint32_t low;

	memcpy(&low, (const uint8_t *)rec + offsetof(struct rt_sample_head, seq), sizeof(low));
	return near + (uint64_t)(int64_t)(int32_t)(low - (uint32_t)near);
}

/* Takes every CPU, then writes snapshot-NNN: header, per-CPU files (their
 * samples from since_ns on, 0: all), the accounting; prints the counts;
 * keeps the side-band bounded. 0, or -errno with err set. In
 * flight_snapshot.c. */
int flight_write_snapshot(struct flight_recorder *f, unsigned int number, const char *reason,
			  uint64_t since_ns, char *err, size_t errlen);

#endif
