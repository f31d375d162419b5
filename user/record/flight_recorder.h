/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_recorder.h: record --overwrite: keeps the newest samples per CPU in
 * fixed memory (overwrite staging rings, or the kernel's backward perf rings)
 * and, on each trigger, writes DIR/snapshot-NNN with exact accounting. */
#ifndef RINGTRACE_FLIGHT_RECORDER_H
#define RINGTRACE_FLIGHT_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/record_sink.h"
#include "sys/cpu_list.h"

/* What the flight recorder needs from the recording session. */
struct flight_recorder_ops {
	/* writes the header file "data" (attrs, synthesized side-band,
	 * features) into dirfd; 0, or -errno with err set */
	int (*write_header)(void *ctx, int dirfd, const char *dirpath, char *err, size_t errlen);
	/* the BPF side's count of samples cpu produced and lost so far; 0, or
	 * -errno */
	int (*bpf_counts)(void *ctx, int cpu, uint64_t *produced, uint64_t *lost);
	/* perfbuf: reads cpu's backward kernel ring, calling sample() on each
	 * sample oldest first while the kernel's output is paused; NULL for
	 * ringbuf, whose samples are in the staging rings */
	long (*read_kernel_ring)(void *ctx, int cpu,
				 int (*sample)(void *fctx, int cpu, const void *rec, size_t size),
				 void *fctx);
	/* ringbuf: the samples cpu lost that no LOST record reported yet, and
	 * the time of the first (the BPF side writes that record only with the
	 * CPU's next sample); NULL for the kernel rings */
	uint64_t (*unreported_losses)(void *ctx, int cpu, uint64_t *time);
	void *ctx;
};

/* One period of one CPU, or a sum of them: produced = held + overwritten + lost. */
struct flight_accounting {
	uint64_t produced, held, overwritten, lost;
};

struct flight_recorder_config {
	const struct cpu_list *cpus;
	int nr_possible;
	size_t staging_bytes;       /* per CPU, ringbuf */
	bool kernel_rings;          /* perfbuf, ring: backward rings (the kernel's, ours) hold the samples */
	const char *transport;      /* its name, for the snapshots' accounts */
	int dirfd;
	const char *dirpath;
	unsigned int max_snapshots; /* 0: no limit */
	bool overlap;               /* each snapshot holds all that is held, its counts
				     * since the start (staging_ring_snapshot's keep) */
	uint64_t sample_lost_id;    /* event id of the LOST_SAMPLES it writes */
	struct flight_recorder_ops ops;
};

/* The flight recorder as the recording's sink: samples go to its rings,
 * side-band to memory, a snapshot is written on each trigger (the sink's
 * trigger op) and at finish. NULL with err set. */
struct record_sink *flight_recorder_create(const struct flight_recorder_config *cfg, char *err,
					   size_t errlen);

#endif
