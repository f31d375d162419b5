/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_summary.bpf.c: trace --summary's kernel side: pairs raw_syscalls'
 * sys_enter and sys_exit per thread and aggregates per (process, syscall). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "syscall_stats.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load. */
const volatile __u32 scope = RT_SYSCALL_SCOPE_ALL;
const volatile bool follow_forks = false;
const volatile __u32 self_tgid = 0; /* ringtrace itself, never counted */

/* Processes in scope (RT_SYSCALL_SCOPE_TGIDS): 1 admitted; 0 the command
 * ringtrace runs, admitted once it has exec'd it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct start {
	__u64 time;
	__u64 nr;
};

/* The syscall each thread is in, and since when. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

/* Not preallocated: a preallocated per-CPU hash would take its whole size on
 * every possible CPU (32768 x 352 bytes x CPUs) before the first call. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, struct rt_syscall_key);
	__type(value, struct rt_syscall_stats);
} stats SEC(".maps");

/* A process's comm, as it was at its last new (process, syscall). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, char[16]);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_syscall_counters);
} counters SEC(".maps");

static __always_inline struct rt_syscall_counters *counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline bool in_scope(__u32 tgid)
{
	__u8 *on;

	if (tgid == self_tgid)
		return false;
	if (scope == RT_SYSCALL_SCOPE_ALL)
		return true;
	on = bpf_map_lookup_elem(&targets, &tgid);
	return on && *on;
}

/* The bucket of a time: ceil(log2(ns)), at most the last. */
static __always_inline __u32 bucket_of(__u64 ns)
{
	__u64 v = ns ? ns - 1 : 0;
	__u32 b = 0;

	if (!ns || ns == 1)
		return 0;
	if (v >> 32) { v >>= 32; b += 32; }
	if (v >> 16) { v >>= 16; b += 16; }
	if (v >> 8) { v >>= 8; b += 8; }
	if (v >> 4) { v >>= 4; b += 4; }
	if (v >> 2) { v >>= 2; b += 2; }
	if (v >> 1) { v >>= 1; b += 1; }
	b += 1; /* v is 1 now: ns - 1 has b + 1 bits, so 2^(b) < ns <= 2^(b+1) */
	return b < RT_SYSCALL_BUCKETS ? b : RT_SYSCALL_BUCKETS - 1;
}

/* raw_syscalls' tracepoints as BTF-typed raw tracepoints: attached by name
 * through BTF, with no tracepoint id to read from tracefs (root's alone on
 * most machines: CAP_BPF and CAP_PERFMON are enough), and beside, not in
 * front of, the perf events on the tracepoints (whose users see every call). */
SEC("tp_btf/sys_enter")
int BPF_PROG(syscall_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct start s;

	(void)regs;
	if (!in_scope(pid_tgid >> 32))
		return 0;
	s.time = bpf_ktime_get_ns();
	s.nr = (__u64)id;
	if (bpf_map_update_elem(&starts, &tid, &s, BPF_ANY)) {
		struct rt_syscall_counters *c = counts();

		if (c)
			c->lost_starts++;
	}
	return 0;
}

static __always_inline void add_square(struct rt_syscall_stats *st, __u64 ns)
{
	__u64 sq, lo;

	if (ns >> 32) { /* ns^2 >= 2^64: its top bits, near enough */
		sq = (ns >> 16) * (ns >> 16);
		st->sumsq_hi += sq >> 32;
		sq <<= 32;
	} else {
		sq = ns * ns;
	}
	lo = st->sumsq_lo + sq;
	if (lo < sq)
		st->sumsq_hi++;
	st->sumsq_lo = lo;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(syscall_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), ns;
	__u32 tid = (__u32)pid_tgid;
	struct rt_syscall_key key = { .tgid = pid_tgid >> 32 };
	struct rt_syscall_stats *st;
	struct start *s = bpf_map_lookup_elem(&starts, &tid);
	__u32 b;

	(void)regs;
	if (!s)
		return 0;
	/* the nr of the entry: execve's exit is seen by the new image */
	key.nr = (__u32)s->nr;
	ns = now > s->time ? now - s->time : 0;
	bpf_map_delete_elem(&starts, &tid);
	if (!in_scope(key.tgid))
		return 0;
	st = bpf_map_lookup_elem(&stats, &key);
	if (!st) {
		struct rt_syscall_stats zero = {};
		char comm[16];

		bpf_get_current_comm(comm, sizeof(comm));
		bpf_map_update_elem(&comms, &key.tgid, comm, BPF_ANY);
		bpf_map_update_elem(&stats, &key, &zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stats, &key);
		if (!st) {
			struct rt_syscall_counters *c = counts();

			if (c)
				c->lost_calls++;
			return 0;
		}
	}
	st->count++;
	if (ret < 0)
		st->errors++;
	st->total_ns += ns;
	if (!st->min_ns || ns < st->min_ns)
		st->min_ns = ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	add_square(st, ns);
	b = bucket_of(ns);
	if (b < RT_SYSCALL_BUCKETS)
		st->buckets[b]++;
	return 0;
}

/* Children of a followed process are followed too (as perf trace's inherit). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(summary_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 yes = 1, *on;

	if (!follow_forks || ptgid == ctgid)
		return 0;
	on = bpf_map_lookup_elem(&targets, &ptgid);
	if (!on || !*on)
		return 0;
	if (bpf_map_update_elem(&targets, &ctgid, &yes, BPF_NOEXIST)) {
		struct rt_syscall_counters *c = counts();

		if (c && !bpf_map_lookup_elem(&targets, &ctgid))
			c->follow_failed++;
	}
	return 0;
}

/* A thread that ends inside a syscall (exit_group, a fatal signal) leaves no
 * start behind; a followed process leaves the scope at its last thread's end. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(summary_exit, struct task_struct *task)
{
	__u32 tid = task->pid, tgid = task->tgid;

	bpf_map_delete_elem(&starts, &tid);
	if (follow_forks && task->signal->live.counter == 0)
		bpf_map_delete_elem(&targets, &tgid);
	return 0;
}

/* The command ringtrace runs is admitted once it has exec'd it: its time in
 * ringtrace's child before is not its own. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(summary_exec, struct task_struct *task)
{
	__u32 tgid = task->tgid;
	__u8 *on = bpf_map_lookup_elem(&targets, &tgid);
	char comm[16];

	if (on)
		*on = 1;
	if (on || scope == RT_SYSCALL_SCOPE_ALL) {
		bpf_get_current_comm(comm, sizeof(comm));
		if (bpf_map_lookup_elem(&comms, &tgid))
			bpf_map_update_elem(&comms, &tgid, comm, BPF_EXIST);
	}
	return 0;
}
