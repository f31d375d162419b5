/* SPDX-License-Identifier: GPL-2.0-only */
/* export_maps.h: what the exporter's BPF program aggregates in maps, read by
 * user/exporter.c: CPU time per cgroup and per comm, the run-queue latency
 * histogram, and its own counts. */
#ifndef RINGTRACE_EXPORT_MAPS_H
#define RINGTRACE_EXPORT_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RT_EXPORT_COMM_LEN 16
/* log2 buckets of run-queue waits in ns: bucket i holds waits below 2^i ns
 * (and at least 2^(i-1)); the last one everything above. */
#define RT_RUNQ_BUCKETS 40

struct rt_cpu_time {
	__u64 samples;
	__u64 ns; /* sum of the samples' periods: CPU time */
};

struct rt_comm_key {
	char comm[RT_EXPORT_COMM_LEN];
};

struct rt_runq_hist {
	__u64 buckets[RT_RUNQ_BUCKETS];
	__u64 count;
	__u64 sum_ns;
};

/* Per CPU. */
struct rt_export_counters {
	__u64 produced; /* samples the program saw */
	__u64 lost;     /* samples not counted: an aggregation map was full */
};

#endif
