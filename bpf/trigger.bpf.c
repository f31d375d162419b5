/* SPDX-License-Identifier: GPL-2.0-only */
/* trigger.bpf.c: in-kernel snapshot triggers of the flight recorder: a hit of
 * a chosen tracepoint, or a task that waited in the run queue longer than a
 * threshold (from sched_wakeup/sched_wakeup_new, or preemption, to sched_switch). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "runq_wait.bpf.h"
#include "scope_filter.bpf.h"
#include "trigger.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 runqlat_threshold_ns = 0;

/* Triggers for the loader; a full ring means one is waiting already. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16384);
} triggers SEC(".maps");

static __always_inline void fire(__u32 kind, __u32 pid, __u64 value, __u64 now)
{
	struct rt_trigger *t = bpf_ringbuf_reserve(&triggers, sizeof(*t), 0);

	if (!t)
		return;
	t->time = now;
	t->value = value;
	t->kind = kind;
	t->pid = pid;
	t->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	bpf_ringbuf_submit(t, 0);
}

/* A hit of the chosen tracepoint by a task in the recording's scope.
 * Returns 1: 0 would make the kernel skip every perf event on the
 * tracepoint, other users' among them. */
SEC("tracepoint")
int trigger_on_tracepoint(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	/* only a hit the recording would sample: in its scope */
	if (in_scope(pid_tgid, bpf_get_smp_processor_id()))
		fire(RT_TRIGGER_EVENT, pid_tgid >> 32, 0, bpf_ktime_get_ns());
	return 1;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(trigger_wakeup, struct task_struct *p)
{
	runq_queue(p->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(trigger_wakeup_new, struct task_struct *p)
{
	runq_queue(p->pid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(trigger_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns(), waited = runq_switch(prev, next, now);

	if (waited > runqlat_threshold_ns) {
		struct rt_trigger *t = bpf_ringbuf_reserve(&triggers, sizeof(*t), 0);

		if (!t)
			return 0;
		t->time = now;
		t->value = waited;
		t->kind = RT_TRIGGER_RUNQLAT;
		t->pid = next->pid;
		t->cpu = bpf_get_smp_processor_id();
		__builtin_memcpy(t->comm, next->comm, sizeof(t->comm));
		bpf_ringbuf_submit(t, 0);
	}
	return 0;
}
