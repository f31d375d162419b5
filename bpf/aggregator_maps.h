/* SPDX-License-Identifier: GPL-2.0-only */
/* aggregator_maps.h: what bpf/aggregator.bpf.c aggregates in maps, read by
 * user/capture/aggregator.c: CPU time per cgroup and per comm, the run-queue
 * latency histogram, and its own counts. */
#ifndef RINGTRACE_AGGREGATOR_MAPS_H
#define RINGTRACE_AGGREGATOR_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define RT_EXPORT_COMM_LEN 16
/* Entries of the cgroup and comm maps: LRU hashes, so that the kernel evicts
 * the least recently sampled key to make room for a new one (a user renaming
 * a process without end cannot fill them for good). */
#define RT_EXPORT_MAP_ENTRIES 16384
/* The ring announcing new cgroup ids (8 bytes each, plus the ring's 8-byte
 * header): room for 4096 between two reads. */
#define RT_NEW_CGROUPS_RING_BYTES (64 * 1024)
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

/* What one CPU put into an LRU map. The kernel evicts keys silently; what it
 * evicted follows from these: keys evicted = inserts - keys in the map, CPU
 * time evicted = added - the sum of the map's values. */
struct rt_map_adds {
	__u64 inserts;            /* keys created */
	struct rt_cpu_time added; /* samples and time added to any key */
};

/* Per CPU. */
struct rt_export_counters {
	__u64 produced; /* samples the program saw */
	__u64 lost;     /* samples not counted: a map had no room even by eviction */
	struct rt_map_adds cgroup, comm;
};

#endif
