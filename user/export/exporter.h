/* SPDX-License-Identifier: GPL-2.0-only */
/* exporter.h: what ringtrace export serves: the in-kernel aggregation of CPU
 * time per cgroup and comm and of run-queue latency, rendered as metrics
 * (cgroup ids named by path). */
#ifndef RINGTRACE_EXPORTER_H
#define RINGTRACE_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/aggregator.h"
#include "capture/perf_events.h"
#include "export/metrics.h"
#include "lib/byte_buffer.h"

struct exporter_config {
	uint32_t event_type;     /* PERF_TYPE_SOFTWARE */
	uint64_t event_config;   /* cpu-clock or task-clock */
	struct sample_rate rate;
	const char *cgroup;      /* only tasks in this cgroup v2 (and below), or NULL */
	unsigned int top_comms;  /* comms shown by name; the rest are "other" */
	unsigned int cgroup_grace_s; /* a removed cgroup's series stay this long */
	struct container_names *names; /* where containers are named, or NULL */
	/* export -g's sampling child, whose CPU time and memory are served
	 * beside process_*: its pid now (0: none, or gone); NULL: none */
	uint32_t (*sampler_pid)(void *ctx);
	/* ...and its counts so far: false when it has said none yet */
	bool (*sampler_counts)(void *ctx, struct sampler_counts *c);
	void *sampler_ctx;
};

/* How long a scrape may wait, in all, for container runtimes to name the
 * containers of new cgroups (each question CONTAINER_NAMES_TIMEOUT_MS at
 * most); the rest are named at a later scrape. */
#define EXPORTER_NAMES_BUDGET_NS 300000000ULL

struct exporter;

/* Everything loaded and attached: aggregation has begun. NULL with err set. */
struct exporter *exporter_start(const struct exporter_config *cfg, char *err, size_t errlen);
/* Reads the maps and renders the metrics into out (thread-safe), with the
 * process_* metrics of this process if process. The series of a cgroup gone
 * for cgroup_grace_s are dropped (and its key). 0, or -errno. */
int exporter_render(struct exporter *e, struct byte_buffer *out, bool process);
/* A descriptor that polls readable when cgroups had their first sample, or
 * -errno. */
int exporter_new_cgroups_fd(struct exporter *e);
/* Names the cgroups that had their first sample, while they exist. */
void exporter_name_new_cgroups(struct exporter *e);
void exporter_stop(struct exporter *e);

/* Adds the run-queue histogram of an aggregator into m and, if m->bpf_stats,
 * its programs' runs after m's first m->nr_programs of runs[max_runs]. */
void exporter_read_aggregator(struct aggregator *a, struct metrics_snapshot *m,
			      struct bpf_program_runs *runs, size_t max_runs);

#endif
