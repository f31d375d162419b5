/* SPDX-License-Identifier: GPL-2.0-only */
/* record_sink.h: where the records of a recording go: the interface the
 * recording session drives and its sinks implement (the per-CPU files, the
 * flight recorder, live metrics), and what the session tells them of itself. */
#ifndef RINGTRACE_RECORD_SINK_H
#define RINGTRACE_RECORD_SINK_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture_counts.h"
#include "unwind_maps.h"

/* What the session can be asked for while it records, from any thread. */
struct record_source {
	/* each CPU's samples produced, lost and overwritten; returns how many */
	size_t (*cpu_counts)(void *ctx, struct capture_cpu_counts *out, size_t max);
	/* the fill of every ring (kernel and staging); returns how many */
	size_t (*rings)(void *ctx, struct capture_ring_fill *out, size_t max);
	/* the capture's BPF programs' runs; returns how many */
	size_t (*programs)(void *ctx, struct bpf_program_runs *out, size_t max);
	/* the in-kernel unwinder's counts (--call-graph ehframe): 0, or -ENOENT
	 * if it is off; may be NULL */
	int (*unwind)(void *ctx, struct rt_unwind_counters *out);
	const char *transport;   /* "ringbuf" or "perfbuf" */
	uint64_t sample_id_type; /* the sample_id trailer of side-band records */
	bool samples_carry_cgroup; /* PERF_SAMPLE_CGROUP: the sample's last u64 */
	uint64_t offcpu_id;        /* the id of offcpu-time samples (time off CPU, not
				    * on it; record --off-cpu), or 0 */
	void *ctx;
};

/* One CPU's totals as a sink counts them. */
struct record_sink_totals {
	uint64_t samples;     /* SAMPLE records written (or held) */
	uint64_t lost;        /* samples the sink itself dropped (its ring was full) */
	uint64_t unwritten;   /* samples taken that never reached the file (a full disk) */
	uint64_t sideband;    /* side-band records the sink dropped */
	uint64_t overwritten; /* samples overwritten (flight recorder) */
	uint64_t bytes;       /* bytes written */
	uint64_t first_time, last_time; /* the first and last sample times in the
					 * file (0 if none), as report reads them */
	uint64_t ring_used, ring_capacity; /* its staging ring, if any */
};

struct record_sink;

struct record_sink_ops {
	/* Before the capabilities are dropped: load, attach, create files.
	 * 0, or -errno with err set. May be NULL. */
	int (*open)(struct record_sink *s, const struct record_source *src, char *err,
		    size_t errlen);
	/* After they are dropped: start threads. 0, or -errno with err set. May
	 * be NULL. */
	int (*start)(struct record_sink *s, char *err, size_t errlen);
	/* The drain thread's records of cpu: a SAMPLE, or a LOST or
	 * LOST_SAMPLES record counting samples lost before it. 0, or a
	 * negative errno that stops the recording. */
	int (*sample)(struct record_sink *s, int cpu, const void *rec, size_t size);
	/* A side-band record of cpu (COMM, MMAP2, FORK, EXIT, CGROUP, or the
	 * kernel's LOST of the tracking event). */
	int (*sideband)(struct record_sink *s, int cpu, const void *rec, size_t size);
	/* The side-band synthesized for what existed at the start (already in
	 * the recording's header), records back to back. May be NULL. */
	void (*initial_sideband)(struct record_sink *s, const void *records, size_t len);
	/* A drain round ended. 0, or -errno with err set: the recording stops.
	 * May be NULL. */
	int (*flush)(struct record_sink *s, char *err, size_t errlen);
	/* The CPUs the sink's own threads may run on from now: the drain
	 * thread's, as it keeps off a CPU busy with what it records
	 * (sys/cpu_avoid.h). May be NULL. */
	void (*run_on)(struct record_sink *s, const cpu_set_t *cpus);
	/* A snapshot was asked for (reason: "SIGUSR2", a trigger), of the
	 * samples from since_ns on (0: all it holds). May be NULL. */
	void (*trigger)(struct record_sink *s, const char *reason, uint64_t since_ns);
	/* Sampling stopped and everything was drained: write what is left.
	 * 0, or -errno with err set. */
	int (*finish)(struct record_sink *s, char *err, size_t errlen);
	/* cpu's totals; false if the sink keeps none for it. May be NULL. */
	bool (*totals)(struct record_sink *s, int cpu, struct record_sink_totals *out);
	void (*free)(struct record_sink *s);
};

struct record_sink {
	const struct record_sink_ops *ops;
};

#endif
