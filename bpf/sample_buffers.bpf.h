/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_buffers.bpf.h: the sampler's settings, its rings (BPF rings or the perf event
 * array), counters and per-CPU scratch a sample is built in, and the
 * kernel's callchain appended to one; defined in sample_buffers.bpf.c */
#ifndef RINGTRACE_SAMPLE_BUFFERS_BPF_H
#define RINGTRACE_SAMPLE_BUFFERS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "own_ring_layout.h"
#include "sample_record.h"

/* Set by the loader before load. */
extern const volatile bool capture_callchain;
/* --call-graph dwarf: no user callchain, the user regs and stack instead */
extern const volatile bool capture_user_stack;
extern const volatile __u32 stack_user_size; /* a multiple of 8 */
/* -g: a stack with a frame in a file whose table is not loaded yet is
 * copied (as --call-graph dwarf) instead of its user frames, within this many
 * bytes a second on a CPU; 0: never */
extern const volatile __u32 stack_copy_budget;
extern const volatile bool capture_cgroup;
extern const volatile bool single_ring; /* one ring for every CPU (per-thread mode) */
extern const volatile bool use_perfbuf;  /* perf event array instead of BPF rings */
/* Wake the reader only once this many bytes wait in a ring (batched wakeups). */
extern const volatile __u64 wakeup_bytes;
/* --transport ring: ringtrace's own rings (own_rings), their data area's
 * bytes per CPU (a power of two) and the slack after it (the largest record
 * copied past the end). */
extern const volatile bool use_own_ring;
extern const volatile __u64 ring_data_bytes;
extern const volatile __u64 ring_slack_bytes;
/* --overwrite: the rings are written backward, never drained (own_ring_layout.h) */
extern const volatile bool ring_backward;
/* The rings' reader closes them with a barrier on every CPU (membarrier):
 * programs no other interrupts mid-write claim with a plain store (see
 * rt_ring_claim). */
extern const volatile bool ring_plain_claim;
/* The index in events of the only event on_tracepoint (on_perf_event) is
 * attached for, or -1 for several: then each attachment's cookie says it.
 * Reading the cookie is a helper call a hit need not make. */
extern const volatile __s32 only_tracepoint_event;
extern const volatile __s32 only_perf_event;

struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024); /* the loader supplies the real rings */
};

/* BPF ring buffers indexed by CPU number (only [0] in single_ring mode). */
struct cpu_rings_map {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct cpu_ring);
};
extern struct cpu_rings_map cpu_rings SEC(".maps");

/* The perf event array transport: one BPF-output perf event per CPU. */
struct perf_rings_map {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, __u32);
};
extern struct perf_rings_map perf_rings SEC(".maps");

/* --transport ring: one element per CPU (indexed by the CPU a program runs
 * on), the loader's mapping of it read by the drain: the control page, the
 * data area and the slack (own_ring_layout.h). */
struct own_rings_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);    /* resized to the number of possible CPUs */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8192);  /* resized: own_ring_element_bytes */
};
extern struct own_rings_map own_rings SEC(".maps");

/* --transport ring: where a writer that passed the wakeup watermark wakes
 * the reader (a word: its CPU), the epoll path of the BPF rings. */
struct ring_wakeups_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
};
extern struct ring_wakeups_map ring_wakeups SEC(".maps");

struct events_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct rt_event);
};
extern struct events_map events SEC(".maps");

/* Tracepoint hits per event on this CPU, to keep every period-th one. */
struct hits_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_MAX_EVENTS);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct hits_map hits SEC(".maps");


/* Room for the largest sample, and for the verifier to see that a stack
 * chunk (at most a page) read at any offset below RT_SAMPLE_MAX_BYTES fits. */
#define SCRATCH_WORDS (RT_SAMPLE_BEFORE_STACK_WORDS + 65536 / 8 + 4096 / 8 + 1)

/* The sample's words, and beside them what is built on the way to the
 * ring, kept off the BPF stack (the verifier's 512 bytes are shared with
 * the unwinder's frames, and a frame is as deep as its deepest slot any
 * path touches): a LOST_SAMPLES record, a user-space probe's raw record,
 * the task's saved user registers (x86-64's pt_regs, 21 words), the
 * registers a -g walk starts from (struct unwind_start), and what the
 * sample is of, for the function that writes it out. */
#define SCRATCH_REGS_WORDS 21
#define SCRATCH_WALK_START_WORDS 5
struct sample_meta {
	__u64 pid_tgid, now, cgroup_id;
	__u32 cpu;
	bool user;
	/* -g: the stack may be copied instead of its frames where a file's
	 * table is not loaded yet (may_copy: the caller appends a copy), and
	 * is (copy_stack) */
	bool may_copy, copy_stack;
	/* this CPU's budget of those copies: the window it counts (a share of
	 * a second), and the bytes copied in it */
	__u64 copy_window, copy_bytes;
};
struct sample_words {
	__u64 w[SCRATCH_WORDS];
	__u64 lost[RT_LOST_WORDS];
	struct rt_probe_record probe;
	__u64 regs[SCRATCH_REGS_WORDS];
	__u64 walk_start[SCRATCH_WALK_START_WORDS];
	struct sample_meta meta;
};

/* Scratch space to build one sample, one per CPU: too large for the BPF
 * stack, and for a per-CPU map's value (32 KiB at most). A program never
 * interrupts another of this object on its CPU (bpf_prog_active). */
struct scratch_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct sample_words);
};
extern struct scratch_map scratch SEC(".maps");

struct counters_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_cpu_counters);
};
extern struct counters_map counters SEC(".maps");

/* Appends "marker, frames..." at word n; returns the new word count. */
static __always_inline __u32 append_stack(void *ctx, struct sample_words *s, __u32 n,
					  __u64 marker, __u64 flags)
{
	long bytes;
	__u32 frames;

	if (n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS - 1 - RT_MAX_STACK_DEPTH)
		return n;
	bytes = bpf_get_stack(ctx, &s->w[n + 1], RT_MAX_STACK_DEPTH * sizeof(__u64), flags);
	if (bytes <= 0)
		return n;
	frames = bytes / sizeof(__u64);
	if (frames > RT_MAX_STACK_DEPTH)
		frames = RT_MAX_STACK_DEPTH;
	s->w[n] = marker;
	return n + 1 + frames;
}

#define PF_KTHREAD 0x00200000

/* A read-only view of kernel memory of a BTF type: its loads are plain loads
 * the kernel makes safe (a fault reads 0), where bpf_probe_read_kernel is a
 * helper call of its own (about 40 ns here). In the kernel since 6.2. */
extern void *bpf_rdonly_cast(void *obj, __u32 btf_id) __ksym;

/* The current task's pid and tgid as bpf_get_current_pid_tgid gives them,
 * read from the task the program takes anyway (its regs, its flags): one
 * helper call fewer (x86-64's JIT inlines bpf_get_current_task_btf on newer
 * kernels), and a call's return costs a host with Safe RET (AMD's SRSO
 * mitigation) tens of cycles. */
static __always_inline __u64 task_pid_tgid(const struct task_struct *task)
{
	return (__u64)(__u32)task->tgid << 32 | (__u32)task->pid;
}

/* task_pt_regs(task) less task->stack: THREAD_SIZE less its padding and a
 * pt_regs, the same for every task of the running kernel, taken from
 * bpf_task_pt_regs at the first call. */
extern __u64 task_regs_offset;

/* The user regs the task saved at its entry to the kernel (bpf_task_pt_regs),
 * found at their fixed offset in the task's stack: loads, not a helper call,
 * once the offset is known. */
static __always_inline const struct pt_regs *task_user_regs(struct task_struct *task)
{
	__u64 off = task_regs_offset, stack = (__u64)task->stack;

	if (!off) {
		off = (__u64)bpf_task_pt_regs(task) - stack;
		task_regs_offset = off;
	}
	return bpf_rdonly_cast((void *)(stack + off), bpf_core_type_id_kernel(struct pt_regs));
}

#endif
