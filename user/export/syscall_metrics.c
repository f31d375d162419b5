/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_metrics.c: trace --summary's sums as Prometheus text: a histogram
 * of call times and a counter of errors per process and syscall. */
#include "export/syscall_metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "export/metrics.h"

static int put(struct byte_buffer *out, const char *text)
{
	return byte_buffer_append(out, text, strlen(text)) ? 0 : -ENOMEM;
}

static int labels(struct byte_buffer *out, const struct syscall_metric_row *r)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%" PRIu32, r->pid);
	if (put(out, "comm=\"") || metrics_escape_label(out, r->comm, strnlen(r->comm, 16)) ||
	    put(out, "\",pid=\"") || put(out, pid) || put(out, "\",syscall=\"") ||
	    metrics_escape_label(out, r->syscall, strlen(r->syscall)) || put(out, "\""))
		return -ENOMEM;
	return 0;
}

static int histogram(struct byte_buffer *out, const struct syscall_metric_row *r)
{
	const struct rt_syscall_stats *st = r->stats;
	uint64_t cumulative = 0;
	char line[128];

	for (int b = 0; b < RT_SYSCALL_BUCKETS - 1; b++) {
		cumulative += st->buckets[b];
		/* bucket b holds times of at most 2^b ns: le is that bound, in
		 * seconds, written exactly (%g rounded 2^30 and 2^33 down) */
		snprintf(line, sizeof(line), ",le=\"%" PRIu64 ".%09" PRIu64 "\"} %" PRIu64 "\n",
			 (uint64_t)(1ULL << b) / 1000000000u, (uint64_t)(1ULL << b) % 1000000000u,
			 cumulative);
		if (put(out, "ringtrace_syscall_duration_seconds_bucket{") || labels(out, r) ||
		    put(out, line))
			return -ENOMEM;
	}
	snprintf(line, sizeof(line), ",le=\"+Inf\"} %" PRIu64 "\n", (uint64_t)st->count);
	if (put(out, "ringtrace_syscall_duration_seconds_bucket{") || labels(out, r) || put(out, line))
		return -ENOMEM;
	snprintf(line, sizeof(line), "} %.9f\n", (double)st->total_ns / 1e9);
	if (put(out, "ringtrace_syscall_duration_seconds_sum{") || labels(out, r) || put(out, line))
		return -ENOMEM;
	snprintf(line, sizeof(line), "} %" PRIu64 "\n", (uint64_t)st->count);
	if (put(out, "ringtrace_syscall_duration_seconds_count{") || labels(out, r) || put(out, line))
		return -ENOMEM;
	return 0;
}

int syscall_metrics_render(const struct syscall_metric_row *rows, size_t nr_rows,
			   struct byte_buffer *out)
{
	char line[64];

	if (put(out, "# HELP ringtrace_syscall_duration_seconds Time from a syscall's entry to "
		     "its exit, per process and syscall.\n"
		     "# TYPE ringtrace_syscall_duration_seconds histogram\n"))
		return -ENOMEM;
	for (size_t i = 0; i < nr_rows; i++)
		if (histogram(out, &rows[i]))
			return -ENOMEM;
	if (put(out, "# HELP ringtrace_syscall_errors_total Syscalls that returned a negative "
		     "value, per process and syscall.\n"
		     "# TYPE ringtrace_syscall_errors_total counter\n"))
		return -ENOMEM;
	for (size_t i = 0; i < nr_rows; i++) {
		snprintf(line, sizeof(line), "} %" PRIu64 "\n", (uint64_t)rows[i].stats->errors);
		if (put(out, "ringtrace_syscall_errors_total{") || labels(out, &rows[i]) ||
		    put(out, line))
			return -ENOMEM;
	}
	return 0;
}
