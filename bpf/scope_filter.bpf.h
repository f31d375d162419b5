/* SPDX-License-Identifier: GPL-2.0-only */
/* scope_filter.bpf.h: what a recording keeps in scope (CPUs, processes,
 * threads, a cgroup), one test shared by the sampler and the triggers; the
 * settings and maps it reads are defined in scope_filter.bpf.c. */
#ifndef RINGTRACE_SCOPE_FILTER_BPF_H
#define RINGTRACE_SCOPE_FILTER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sample_record.h"

/* Set by the loader before load: RT_FILTER_* bits. */
extern const volatile __u32 filter_flags;
extern const volatile bool cgroup_exact;
/* Set by the loader: the perf events are opened on the threads in scope
 * (per-thread mode, no command waiting for its exec), so a perf event's
 * program runs in one of them alone and needs no test of its own. */
extern const volatile bool perf_events_per_thread;
extern const volatile __u64 target_cgroup_id;

/* The sampler fills these; the triggers reuse the sampler's maps. */
struct cpu_filter_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, __u8);
};
extern struct cpu_filter_map cpu_filter SEC(".maps");

struct target_tgids_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8); /* RT_TARGET_* */
};
extern struct target_tgids_map target_tgids SEC(".maps");

struct target_tids_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8); /* as target_tgids' */
};
extern struct target_tids_map target_tids SEC(".maps");

struct target_cgroup_map {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};
extern struct target_cgroup_map target_cgroup SEC(".maps");

static __always_inline bool in_scope(__u64 pid_tgid, __u32 cpu)
{
	if (filter_flags & RT_FILTER_CPU) {
		__u8 *on = bpf_map_lookup_elem(&cpu_filter, &cpu);

		if (!on || !*on)
			return false;
	}
	if (filter_flags & RT_FILTER_TGID) {
		__u32 tgid = pid_tgid >> 32;
		__u8 *on = bpf_map_lookup_elem(&target_tgids, &tgid);

		if (!on || *on == RT_TARGET_PENDING)
			return false;
		/* a process that exited is in scope until its last thread
		 * lets go of its memory (exit_mm), just after perf closes its
		 * events (perf_event_exit_task, right after the tracepoint):
		 * its sched_process_exit is kept, what its teardown and last
		 * switch fire is not */
		if (*on == RT_TARGET_EXITED && !bpf_get_current_task_btf()->mm)
			return false;
	}
	if (filter_flags & RT_FILTER_TID) {
		__u32 tid = (__u32)pid_tgid;
		__u8 *on = bpf_map_lookup_elem(&target_tids, &tid);

		if (!on || !*on)
			return false;
	}
	if (filter_flags & RT_FILTER_CGROUP) {
		if (cgroup_exact) {
			if (bpf_get_current_cgroup_id() != target_cgroup_id)
				return false;
		} else if (bpf_current_task_under_cgroup(&target_cgroup, 0) != 1) {
			return false;
		}
	}
	return true;
}

#endif
