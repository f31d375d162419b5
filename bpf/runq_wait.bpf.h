/* SPDX-License-Identifier: GPL-2.0-only */
/* runq_wait.bpf.h: how long each task waits in the run queue, from the time it
 * is woken (or preempted while runnable) to the time it runs; shared by the
 * BPF objects that need it (each gets its own map). */
#ifndef RINGTRACE_RUNQ_WAIT_BPF_H
#define RINGTRACE_RUNQ_WAIT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define RUNQ_TASK_RUNNING 0

/* When each runnable task was queued. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} queued_at SEC(".maps");

static __always_inline void runq_queue(__u32 pid)
{
	__u64 now = bpf_ktime_get_ns();

	if (pid)
		bpf_map_update_elem(&queued_at, &pid, &now, BPF_ANY);
}

/* At sched_switch: queues prev if it is still runnable, and returns how
 * long next waited (0 if it was not seen queued). */
static __always_inline __u64 runq_switch(struct task_struct *prev, struct task_struct *next,
					 __u64 now)
{
	__u32 pid = next->pid;
	__u64 *queued, waited;

	if (prev->__state == RUNQ_TASK_RUNNING)
		runq_queue(prev->pid);
	if (!pid)
		return 0;
	queued = bpf_map_lookup_elem(&queued_at, &pid);
	if (!queued)
		return 0;
	waited = now - *queued;
	bpf_map_delete_elem(&queued_at, &pid);
	return waited;
}

#endif
