/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_events.h: perf_event_open(2) and the attrs ringtrace opens: the event a
 * BPF program samples on, and the side-band event that tracks tasks and mmaps. */
#ifndef RINGTRACE_PERF_EVENTS_H
#define RINGTRACE_PERF_EVENTS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "format/recording_layout.h"

/* How often an event samples: every `period` events (ns for clocks) or at
 * `freq` Hz; exactly one is non-zero. */
struct sample_rate {
	uint64_t freq;
	uint64_t period;
};


/* perf_event_open(2); returns the fd or -errno. Always close-on-exec. */
int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
		       unsigned long flags);

/* The cpu-clock event a BPF program attaches to, created disabled (attaching
 * enables it). */
void perf_attr_cpu_clock(struct perf_event_attr *attr, const struct sample_rate *rate);

/* A dummy software event that delivers COMM, MMAP2, FORK and EXIT (and CGROUP
 * if cgroups) records with a sample_id trailer of sample_id_type, time from
 * RINGTRACE_CLOCKID, and a wakeup once wakeup_bytes are waiting. */
void perf_attr_tracking(struct perf_event_attr *attr, uint64_t sample_id_type,
			uint32_t wakeup_bytes, bool cgroups);

/* Highest sampling frequency the kernel allows (kernel.perf_event_max_sample_rate). */
uint64_t perf_max_sample_rate(void);

#endif
