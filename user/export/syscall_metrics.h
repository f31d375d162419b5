/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_metrics.h: trace --summary's sums as Prometheus text: a histogram
 * of call times and a counter of errors per process and syscall. */
#ifndef RINGTRACE_SYSCALL_METRICS_H
#define RINGTRACE_SYSCALL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"
#include "syscall_stats.h"

struct syscall_metric_row {
	uint32_t pid;
	const char *comm;    /* raw bytes: escaped and cleaned when rendered */
	const char *syscall; /* its name, or its number as text */
	const struct rt_syscall_stats *stats;
};

/* Appends ringtrace_syscall_duration_seconds (a histogram, the log2 buckets
 * in seconds, cumulative, +Inf) and ringtrace_syscall_errors_total, labelled
 * comm, pid and syscall. 0, or -ENOMEM. */
int syscall_metrics_render(const struct syscall_metric_row *rows, size_t nr_rows,
			   struct byte_buffer *out);

#endif
