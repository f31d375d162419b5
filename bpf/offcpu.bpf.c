/* SPDX-License-Identifier: GPL-2.0-only */
/* offcpu.bpf.c: off-CPU time (record --off-cpu): a task in scope that goes to sleep
 * leaves its stacks and the time; when it runs again, an offcpu-time sample of it. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sample_output.bpf.h"
#include "scope_filter.bpf.h"

/* Set by the loader. */
const volatile __u32 offcpu_event = 0;   /* the offcpu-time event's index in events */
const volatile __u64 offcpu_min_ns = 0;  /* --off-cpu-min: shorter blocks give no sample */

/* prev_state bits of a sleeping task, as perf's off_cpu.bpf.c counts them:
 * not a preempted task, which waits runnable. Tested as bits, not values:
 * since Linux 6.1 nanosleep and most waits add TASK_FREEZABLE (0x2000). */
#define OFFCPU_TASK_INTERRUPTIBLE 0x0001
#define OFFCPU_TASK_UNINTERRUPTIBLE 0x0002
#define OFFCPU_E2BIG 7   /* a full hash map's update error, -E2BIG */
#define OFFCPU_EEXIST 17 /* BPF_NOEXIST's, -EEXIST */

/* The kernel callchain begins, as perf's sched:sched_switch samples begin, in
 * __schedule (its address, from kallsyms, set by the loader; 0 if unknown),
 * not in the frames of the BPF program and of the tracepoint's call into it:
 * how many of those there are, found on the first switch, is the same on
 * every one. */
const volatile __u64 offcpu_schedule_addr = 0;
#define OFFCPU_SCHEDULE_MAX_BYTES 0x4000 /* the return address is this near its start */
#define OFFCPU_SKIP_PROBE 8              /* frames looked at for it */
__u32 offcpu_kernel_skip = 0;            /* frames before __schedule, plus 1 once found */

static __always_inline __u64 offcpu_kernel_stack_flags(void *ctx, struct sample_words *s)
{
	__u64 schedule = offcpu_schedule_addr;
	__u32 skip = offcpu_kernel_skip;
	long bytes;

	if (skip)
		return (skip - 1) & BPF_F_SKIP_FIELD_MASK;
	skip = 1;
	bytes = bpf_get_stack(ctx, &s->w[0], OFFCPU_SKIP_PROBE * sizeof(__u64), 0);
	for (__u32 i = 0; schedule && i < OFFCPU_SKIP_PROBE; i++) {
		if ((long)((i + 1) * sizeof(__u64)) > bytes)
			break;
		if (s->w[i] - schedule < OFFCPU_SCHEDULE_MAX_BYTES) {
			skip = i + 1;
			break;
		}
	}
	offcpu_kernel_skip = skip;
	return (skip - 1) & BPF_F_SKIP_FIELD_MASK;
}

/* A sleeping task: when it left, its cgroup and its start time (a thread id
 * reused by a new task is not the sleeper), then its callchain (nr, the
 * context markers and the frames) as a sample carries it. Built in the
 * scratch words just before the callchain's, so that the map update copies
 * it from there in one piece. */
#define OFFCPU_PENDING_HEAD 3
struct offcpu_pending {
	__u64 left;
	__u64 cgroup_id;
	__u64 task_start;
	__u64 chain[RT_CALLCHAIN_MAX_WORDS];
};
_Static_assert(OFFCPU_PENDING_HEAD <= RT_SAMPLE_FIXED_WORDS, "the head fits before the chain");

/* The sleeping tasks of the scope, by thread id (resized by the loader). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct offcpu_pending);
} offcpu_pending SEC(".maps");

/* Scratch space of the switch program, one per CPU: it runs with interrupts
 * off, but an NMI's perf event program may use the sampler's own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct sample_words);
} offcpu_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_offcpu_counters);
} offcpu_counters SEC(".maps");

/* prev (the current task) leaves the CPU to sleep: its kernel callchain and
 * its user one (unwound as the recording's -g, else by frame pointers). */
static __always_inline void offcpu_leave(void *ctx, struct task_struct *prev, __u64 pid_tgid,
					 struct sample_words *s, struct rt_offcpu_counters *c,
					 __u64 now)
{
	__u32 tid = (__u32)pid_tgid, n = RT_SAMPLE_FIXED_WORDS + 1;
	__u64 *head = &s->w[RT_SAMPLE_FIXED_WORDS - OFFCPU_PENDING_HEAD];
	long err;

	n = append_stack(ctx, s, n, PERF_CONTEXT_KERNEL, offcpu_kernel_stack_flags(ctx, s));
	if (unwind_ehframe)
		n = append_user_callchain(s, n, NULL, pid_tgid >> 32, false);
	else
		n = append_stack(ctx, s, n, PERF_CONTEXT_USER, BPF_F_USER_STACK);
	s->w[RT_SAMPLE_FIXED_WORDS] = n - RT_SAMPLE_FIXED_WORDS - 1;
	head[0] = now;
	head[1] = capture_cgroup ? bpf_get_current_cgroup_id() : 0;
	head[2] = prev->start_time;
	err = bpf_map_update_elem(&offcpu_pending, &tid, head, BPF_NOEXIST);
	if (err == -OFFCPU_EEXIST) {
		c->replaced++;
		err = bpf_map_update_elem(&offcpu_pending, &tid, head, BPF_ANY);
	}
	if (!err)
		c->slept++;
	else if (err == -OFFCPU_E2BIG)
		c->pending_full++;
	else
		c->pending_failed++;
}

/* next (about to run) slept in scope, as p says: a sample of the time it
 * was off CPU, if at least --off-cpu-min, stamped with this time and CPU. */
static __always_inline void offcpu_return(void *ctx, struct task_struct *next,
					  struct offcpu_pending *p, struct sample_words *s,
					  struct rt_offcpu_counters *c, __u32 cpu, __u64 now)
{
	__u32 tid = next->pid, idx = offcpu_event, words, size;
	struct rt_sample_head *h = (struct rt_sample_head *)s->w;
	struct rt_event *ev;
	__u64 pid_tgid, off;
	bool user;

	if (p->task_start != next->start_time) {
		c->stale++;
		goto out;
	}
	if (filter_flags & RT_FILTER_CPU) {
		/* the sample is written where the task runs again: with -C,
		 * only those CPUs have a ring and a file */
		__u8 *on = bpf_map_lookup_elem(&cpu_filter, &cpu);

		if (!on || !*on) {
			c->other_cpu++;
			goto out;
		}
	}
	off = now - p->left;
	if (off < offcpu_min_ns) {
		c->short_blocks++;
		c->short_ns += off;
		goto out;
	}
	ev = bpf_map_lookup_elem(&events, &idx);
	if (!ev || p->chain[0] >= RT_CALLCHAIN_MAX_WORDS)
		goto unreadable;
	/* the words the callchain has, not the entry's whole room */
	words = 1 + (__u32)p->chain[0];
	size = words * sizeof(__u64);
	barrier_var(size); /* a bound the verifier sees, kept by clang */
	if (size > sizeof(p->chain) ||
	    bpf_probe_read_kernel(&s->w[RT_SAMPLE_FIXED_WORDS], size, p->chain))
		goto unreadable;
	pid_tgid = (__u64)next->tgid << 32 | tid;
	/* the sample is of its first frame, the kernel's where there is one */
	user = words < 3 || s->w[RT_SAMPLE_FIXED_WORDS + 1] == PERF_CONTEXT_USER;
	h->id = ev->id;
	h->ip = words >= 3 ? s->w[RT_SAMPLE_FIXED_WORDS + 2] : 0;
	h->pid = pid_tgid >> 32;
	h->tid = tid;
	h->time = now;
	h->cpu = cpu;
	h->period = off;
	c->samples++;
	c->sample_ns += off;
	/* a hardware event's NMI may run the perf event program in the middle of
	 * this one (the context switch runs with interrupts off, not NMIs) */
	submit_sample_of(ctx, s, RT_SAMPLE_FIXED_WORDS + words, ev, user, pid_tgid, cpu, now,
			 p->cgroup_id, true);
	goto out;
unreadable:
	c->unreadable++;
out:
	bpf_map_delete_elem(&offcpu_pending, &tid);
}

/* Every context switch of the machine: the cheap tests first (a sleeping
 * user task in scope; a task that slept), the clock and the scratch space
 * only for those. A BTF tracepoint: no perf event on sched_switch, so other
 * users' perf events there see every switch. */
SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, next_tid = next->pid;
	struct rt_offcpu_counters *c = NULL;
	struct sample_words *s = NULL;
	struct offcpu_pending *p;
	__u64 now = 0, pid_tgid;

	(void)preempt;
	if ((prev_state & (OFFCPU_TASK_INTERRUPTIBLE | OFFCPU_TASK_UNINTERRUPTIBLE)) &&
	    !(prev->flags & PF_KTHREAD)) {
		/* prev is still the current task: the scope's tests, its
		 * cgroup's among them, are of it */
		pid_tgid = (__u64)prev->tgid << 32 | (__u32)prev->pid;
		if (in_scope(pid_tgid, cpu)) {
			c = bpf_map_lookup_elem(&offcpu_counters, &zero);
			s = bpf_map_lookup_elem(&offcpu_scratch, &cpu);
			if (!c || !s)
				return 0;
			now = bpf_ktime_get_ns();
			offcpu_leave(ctx, prev, pid_tgid, s, c, now);
		}
	}
	p = bpf_map_lookup_elem(&offcpu_pending, &next_tid);
	if (!p)
		return 0;
	if (!c || !s) {
		c = bpf_map_lookup_elem(&offcpu_counters, &zero);
		s = bpf_map_lookup_elem(&offcpu_scratch, &cpu);
		if (!c || !s)
			return 0;
		now = bpf_ktime_get_ns();
	}
	offcpu_return(ctx, next, p, s, c, cpu, now);
	return 0;
}
