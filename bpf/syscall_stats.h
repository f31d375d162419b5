/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_stats.h: the layout trace --summary's BPF program aggregates
 * into and the loader reads: per (process, syscall) counts, times, buckets. */
#ifndef RINGTRACE_SYSCALL_STATS_H
#define RINGTRACE_SYSCALL_STATS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Log2 buckets of a call's time in ns: bucket i counts the calls that took
 * more than 2^(i-1) and at most 2^i ns (bucket 0: at most 1 ns); the last
 * bucket also takes everything longer. */
#define RT_SYSCALL_BUCKETS 36

/* Scope: every process, or only those in the targets map. */
#define RT_SYSCALL_SCOPE_ALL 0u
#define RT_SYSCALL_SCOPE_TGIDS 1u

struct rt_syscall_key {
	__u32 tgid;
	__u32 nr; /* the syscall's number (x86_64's table) */
};

/* Per CPU (a per-CPU hash): the loader adds the CPUs' values. */
struct rt_syscall_stats {
	__u64 count;
	__u64 errors;   /* calls that returned a negative value */
	__u64 total_ns;
	__u64 min_ns;   /* 0 with count 0 */
	__u64 max_ns;
	__u64 sumsq_lo; /* the sum of the times' squares (ns^2), 128 bits */
	__u64 sumsq_hi;
	__u64 buckets[RT_SYSCALL_BUCKETS];
};

/* The program's own counters (an array of one, per CPU). */
struct rt_syscall_counters {
	__u64 lost_calls;     /* a (process, syscall) not counted: the map was full */
	__u64 lost_starts;    /* an entry not timed: the per-thread map was full */
	__u64 follow_failed;  /* a child not followed: the targets map was full */
};

#endif
