/* exporter.h: the capture behind ringtrace export: loads the aggregating BPF
 * program on a sampling event of every CPU and the run-queue tracepoints, and
 * reads its maps into a metrics snapshot (cgroup ids named by path). */
#ifndef RINGTRACE_EXPORTER_H
#define RINGTRACE_EXPORTER_H

#include <stddef.h>
#include <stdint.h>

#include "export/metrics.h"
#include "capture/perf_events.h"

struct exporter_config {
	uint32_t event_type;     /* PERF_TYPE_SOFTWARE */
	uint64_t event_config;   /* cpu-clock or task-clock */
	struct sample_rate rate;
	const char *cgroup;      /* only tasks in this cgroup v2 (and below), or NULL */
	unsigned int top_comms;  /* comms shown by name; the rest are "other" */
	bool runq_only;          /* only the run-queue histogram (record --metrics) */
};

struct exporter;

/* Everything loaded and attached: aggregation has begun. NULL with err set. */
struct exporter *exporter_start(const struct exporter_config *cfg, char *err, size_t errlen);
/* Reads the maps and renders the metrics into out (thread-safe). 0 or -1. */
int exporter_render(struct exporter *e, struct byte_buffer *out);
/* The run-queue histogram alone, into m (its runq_ fields). */
int exporter_read_runq(struct exporter *e, struct metrics_snapshot *m);
/* Its programs' run counts and times (see bpf_stats_read). */
size_t exporter_program_stats(struct exporter *e, struct metrics_program *out, size_t max);
void exporter_stop(struct exporter *e);

#endif
