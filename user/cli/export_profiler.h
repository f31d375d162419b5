/* SPDX-License-Identifier: GPL-2.0-only */
/* export_profiler.h: the profiles ringtrace export -g serves: a flight
 * recording of every CPU with -g stacks, run as a child from the start, and
 * each request's profile cut from a snapshot of it (report --pprof of the
 * request's window and filters). */
#ifndef RINGTRACE_EXPORT_PROFILER_H
#define RINGTRACE_EXPORT_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/metrics.h"
#include "export/profile_requests.h"

struct export_profiler_config {
	uint64_t freq;      /* samples per second per CPU */
	const char *cgroup; /* only tasks in this cgroup v2 (and below), or NULL */
	const char *unwind_mem; /* the child's --unwind-mem */
	const char *unwind_cache_size; /* the child's --unwind-cache-size, or NULL: its default */
	struct container_names *names; /* where containers are named, or NULL */
	bool offcpu;                /* the child records --off-cpu too: off-CPU profiles */
	const char *offcpu_min;     /* its --off-cpu-min */
};

struct export_profiler;

/* Starts the child recording (while the capabilities last: the child
 * attaches, then drops its own), in a private directory of its own. NULL
 * with err set. */
struct export_profiler *export_profiler_start(const struct export_profiler_config *cfg, char *err,
					      size_t errlen);
/* The profile_make_fn of the metrics server, its ctx the profiler. */
int export_profiler_make(void *ctx, const struct profile_query *q, const atomic_bool *cancel,
			 struct byte_buffer *out, char *err, size_t errlen);
/* The profile_health_fn: false once the child has ended. */
bool export_profiler_healthy(void *ctx, char *why, size_t len);
/* Stops the child and removes the private directory. */
/* The sampling child's pid while it runs, else 0 (ctx: the profiler): for
 * the metrics of its CPU time and memory. */
uint32_t export_profiler_child_pid(void *ctx);
/* What the sampling child counted so far (its flight recording's counts,
 * rewritten each second): false before its first second. */
bool export_profiler_child_counts(void *ctx, struct sampler_counts *c);
void export_profiler_stop(struct export_profiler *p);

#endif
