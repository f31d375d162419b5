/* SPDX-License-Identifier: GPL-2.0-only */
/* aggregator.h: the BPF program that aggregates in the kernel (no record per
 * sample reaches user space): CPU time per cgroup and per comm from a sampling
 * event on every CPU, and the run-queue latency histogram from the scheduler's
 * tracepoints; loaded, attached and its maps read here. */
#ifndef RINGTRACE_AGGREGATOR_H
#define RINGTRACE_AGGREGATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture_counts.h"
#include "capture/perf_events.h"
#include "aggregator_maps.h"

struct aggregator_config {
	uint32_t event_type;     /* PERF_TYPE_SOFTWARE */
	uint64_t event_config;   /* cpu-clock or task-clock */
	struct sample_rate rate;
	int cgroup_fd;           /* only tasks in this cgroup v2 (and below), or -1 */
	bool runq_only;          /* only the run-queue histogram */
};

/* Run-queue waits summed over every CPU: bucket i holds waits below 2^i ns. */
struct runq_histogram {
	uint64_t buckets[RT_RUNQ_BUCKETS];
	uint64_t count;
	uint64_t sum_ns;
};

struct aggregator;

/* Everything loaded and attached: aggregation has begun. NULL with err set. */
struct aggregator *aggregator_start(const struct aggregator_config *cfg, char *err,
				    size_t errlen);
/* What the kernel evicted from a full map (an LRU hash) since the start: the
 * keys, and the samples and CPU time they held. Both follow from counts the
 * BPF program keeps (keys created, time added) less what the map holds when
 * read; reads race with samples, so each is kept from ever decreasing. */
struct aggregator_evicted {
	uint64_t keys;
	struct rt_cpu_time time;
};

/* Calls fn for every cgroup id with CPU time, and says what was evicted; 0,
 * or -errno if the map could not be read (-ECANCELED if fn returned nonzero).
 * The map is read in batches: a full map (RT_EXPORT_MAP_ENTRIES keys) takes a
 * few system calls. */
int aggregator_each_cgroup(struct aggregator *a,
			   int (*fn)(void *ctx, uint64_t id, const struct rt_cpu_time *t), void *ctx,
			   struct aggregator_evicted *evicted);
/* The same for every comm (comm NUL-terminated). */
int aggregator_each_comm(struct aggregator *a,
			 int (*fn)(void *ctx, const char *comm, const struct rt_cpu_time *t),
			 void *ctx, struct aggregator_evicted *evicted);
/* Removes a cgroup's key from the map (a cgroup that is gone): its CPU time
 * is no longer reported, nor counted as evicted. 0, or -ENOENT if it was not
 * there. */
int aggregator_forget_cgroup(struct aggregator *a, uint64_t id);
/* A descriptor that polls readable when cgroups had their first sample
 * (the new_cgroups ring), or -errno. */
int aggregator_new_cgroups_fd(struct aggregator *a);
/* Calls fn for each cgroup id announced since the last call (from one
 * thread at a time); how many, or -errno. */
int aggregator_new_cgroups(struct aggregator *a, void (*fn)(void *ctx, uint64_t id), void *ctx);
/* The samples seen and not counted, per CPU sampled; returns how many CPUs. */
size_t aggregator_cpu_counts(struct aggregator *a, struct capture_cpu_counts *out, size_t max);
/* 0, or -errno if the histogram could not be read. */
int aggregator_runq(struct aggregator *a, struct runq_histogram *out);
/* Its programs' run counts and times (see bpf_stats_read). */
size_t aggregator_program_runs(struct aggregator *a, struct bpf_program_runs *out, size_t max);
void aggregator_stop(struct aggregator *a);

#endif
