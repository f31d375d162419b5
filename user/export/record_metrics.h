/* record_metrics.h: what record --metrics serves while recording: CPU time per
 * cgroup and per comm summed from the very samples the drain writes, and the
 * counts, ring occupancy and run-queue histogram the session hands in. */
#ifndef RINGTRACE_RECORD_METRICS_H
#define RINGTRACE_RECORD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"
#include "export/metrics.h"

struct record_metrics;

/* The session's own numbers, read on each scrape from the server's thread. */
struct record_metrics_source {
	/* fills up to max CPUs' record counts; returns how many */
	size_t (*cpu_counts)(void *ctx, struct metrics_cpu_counts *out, size_t max);
	/* fills up to max rings; returns how many */
	size_t (*rings)(void *ctx, struct metrics_ring *out, size_t max);
	/* the run-queue histogram and BPF program stats into m */
	void (*extra)(void *ctx, struct metrics_snapshot *m);
	const char *transport;
	void *ctx;
};

struct record_metrics *record_metrics_create(unsigned int top_comms,
					     const struct record_metrics_source *src);
/* Drain thread: a sample (period of CPU time), a COMM record. */
void record_metrics_sample(struct record_metrics *rm, uint32_t tid, uint64_t cgroup,
			   uint64_t period);
void record_metrics_comm(struct record_metrics *rm, uint32_t tid, const char *comm);
void record_metrics_fork(struct record_metrics *rm, uint32_t parent_tid, uint32_t tid);
/* Server thread. */
int record_metrics_render(void *rm, struct byte_buffer *out);
void record_metrics_free(struct record_metrics *rm);

#endif
