/* SPDX-License-Identifier: GPL-2.0-only */
/* sampler.bpf.c: on each sampled perf event or tracepoint hit in scope, builds a
 * PERF_RECORD_SAMPLE and writes it into a BPF ring; follows forks of targets.
 * Linked into one object with the other programs of a recording (probes,
 * ehframe_unwind, offcpu) and the maps they share (sample_buffers,
 * scope_filter). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ehframe_unwind.bpf.h"
#include "sample_output.bpf.h"
#include "scope_filter.bpf.h"
#include "trace_filter.bpf.h"

struct event_filters_map event_filters SEC(".maps");
struct filter_scratch_map filter_scratch SEC(".maps");

/* A software or hardware perf event overflowed. */
SEC("perf_event")
int on_perf_event(struct bpf_perf_event_data *ctx)
{
	__u32 idx = only_perf_event >= 0 ? only_perf_event : (__u32)bpf_get_attach_cookie(ctx),
	      cpu = bpf_get_smp_processor_id();
	__u64 pid_tgid = task_pid_tgid(bpf_get_current_task_btf());
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct sample_words *s = bpf_map_lookup_elem(&scratch, &cpu);
	bool user = sampled_in_user_mode(ctx);
	__u64 now;
	__u32 n;

	/* a lookup of the process or thread saved where the event's attach
	 * already scopes it (~100 ns: the hash's lines are cold at each sample) */
	if (!ev || !s || !(perf_events_per_thread || in_scope(pid_tgid, cpu)))
		return 0;
	now = bpf_ktime_get_ns();
	n = begin_sample(ctx, s, ev, PT_REGS_IP(&ctx->regs), user,
			 user ? (const __u64 *)&ctx->regs : NULL, pid_tgid, cpu, now,
			 ctx->sample_period);
	if (capture_user_stack || stack_copy_budget)
		n = append_user_stack(s, n, user ? (const __u64 *)&ctx->regs : NULL,
				      capture_cgroup ? 8 : 0);
	return submit_sample(ctx, s, n, ev, user, pid_tgid, cpu, now, false);
}

/* The record seen as words through that view: as a pt_regs (21 words), an
 * ordinary loads' view of its first 168 bytes. Not ctx loads: the kernel
 * refuses to attach a program whose ctx loads reach past the end of a
 * tracepoint's fields, and one program serves every tracepoint. */
static __always_inline const __u64 *record_words(void *ctx)
{
	return bpf_rdonly_cast(ctx, bpf_core_type_id_kernel(struct pt_regs));
}

/* Tracepoint records up to this long (at most the 168 bytes of that view)
 * are copied with plain loads at fixed offsets; longer ones, and those with
 * dynamic fields, with bpf_probe_read_kernel. */
#define RT_DIRECT_RAW_WORDS 16

/* The sample's ip: a syscall tracepoint's is the task's user ip, as perf
 * samples it (the regs the kernel puts in a syscall record are the
 * tracepoint's caller's, in the kernel); another tracepoint's is the ip of
 * the regs whose address the kernel put in the record's first word (the
 * tracepoint's caller). Both loads are plain loads of BTF-typed pointers. */
static __always_inline __u64 tracepoint_ip(void *ctx, bool syscall)
{
	const struct pt_regs *regs;

	/* (the task taken again, not kept from the program's start: a
	 * pointer kept live is a slot more in a frame the -g walk's add to) */
	if (syscall)
		regs = task_user_regs(bpf_get_current_task_btf());
	else
		regs = bpf_rdonly_cast((void *)record_words(ctx)[0],
				       bpf_core_type_id_kernel(struct pt_regs));
	return regs->ip;
}

/* Copies the record's words 1.. (word 0 is the regs pointer, which the
 * common header replaces) to raw, then zeroes the bytes of the last word
 * past raw_size: they pad the field. raw_size is at most 8 *
 * RT_DIRECT_RAW_WORDS. */
static __always_inline void copy_record_words(void *ctx, __u8 *raw, __u32 raw_size)
{
	const __u64 *rec = record_words(ctx);
	__u32 tail;

#pragma unroll
	for (int i = 1; i < RT_DIRECT_RAW_WORDS; i++)
		if (raw_size > i * 8)
			*(__u64 *)(raw + i * 8) = rec[i];
	tail = raw_size & 7;
	if (tail) {
		__u32 at = raw_size & ~7u;

		barrier_var(at);
		/* (and masked: the test may be of another copy of at) */
		if (at >= 8 && at <= (RT_DIRECT_RAW_WORDS - 1) * 8)
			*(__u64 *)(raw + (at & (RT_DIRECT_RAW_WORDS - 1) * 8)) &=
				(1ULL << (tail * 8)) - 1;
	}
}

/* The raw field at words, from its record copied after its size (a u32):
 * the record's common header put in place of its first word (the regs
 * pointer), and the size, padded (to end the field 8-byte aligned). */
static __always_inline void finish_raw_field(__u64 *words, const struct rt_event *ev,
					     __u64 pid_tgid, __u32 padded)
{
	struct {
		__u16 type;
		__u8 flags;
		__u8 preempt_count;
		__s32 pid;
	} common = { .type = ev->tp_type, .pid = (__s32)pid_tgid };

	__builtin_memcpy((__u8 *)words + 4, &common, sizeof(common));
	*(__u32 *)words = padded;
}

/* The padded size of a raw field holding raw_size bytes of a record. */
static __always_inline __u32 padded_raw_size(__u32 raw_size)
{
	return ((raw_size + 4 + 7) & ~7u) - 4;
}

/* Above the most words of a raw field built in place (RT_DIRECT_RAW_WORDS +
 * 1), a power of two less one. */
#define IN_PLACE_FIELD_MASK 31
_Static_assert(RT_DIRECT_RAW_WORDS + 1 <= IN_PLACE_FIELD_MASK, "a field's words within the mask");

/* --transport ring, forward, and a sample of nothing but its head, the
 * record and its cgroup: the sample built in place in the ring (see
 * own_ring_reserve), for a record of raw_size bytes copied by plain loads;
 * or counted lost where the ring cannot take it (busy, closed, full: not
 * built at all). false where it could not be: then it is built in the
 * scratch. */
static __always_inline bool write_in_place(void *ctx, const struct rt_event *ev, __u64 pid_tgid,
					   __u32 cpu, __u64 now, bool syscall, __u32 raw_size)
{
	__u32 padded = padded_raw_size(raw_size), zero = 0, field = (4 + padded) / 8, words, last;
	struct rt_cpu_counters *cnt = bpf_map_lookup_elem(&counters, &zero);
	struct rt_sample_head *h;
	struct rt_ring_control *c;
	bool lost;
	__u64 *rec;

	/* (the field's words bounded where they index, for the verifier) */
	barrier_var(field);
	if (field < 2 || field > RT_DIRECT_RAW_WORDS + 1)
		return false;
	words = RT_SAMPLE_FIXED_WORDS + field + (capture_cgroup ? 1 : 0);
	if (!cnt)
		return false;
	rec = own_ring_reserve(&c, words * 8, cnt, &lost);
	if (!rec && lost) {
		/* as write_sample counts a sample it cannot write */
		count_one(&cnt->produced, false);
		count_loss(cnt, now, true);
		return true;
	}
	if (!rec)
		return false;
	h = (struct rt_sample_head *)rec;
	fill_sample_head(h, ev, tracepoint_ip(ctx, syscall), pid_tgid, cpu, now,
			 ev->period > 1 ? ev->period : 1);
	close_sample_head(h, words * 8, syscall, (__u32)count_one(&cnt->produced, false));
	rec += RT_SAMPLE_FIXED_WORDS;
	/* (masks the verifier sees on the registers that index, behind an
	 * opaque copy clang cannot drop them from: the test of field above may
	 * be of another copy of it) */
	last = field - 1;
	barrier_var(last);
	rec[last & IN_PLACE_FIELD_MASK] = 0; /* the padding */
	copy_record_words(ctx, (__u8 *)rec + 4, raw_size);
	finish_raw_field(rec, ev, pid_tgid, padded);
	if (capture_cgroup) {
		last = field;
		barrier_var(last);
		rec[last & IN_PLACE_FIELD_MASK] = bpf_get_current_cgroup_id();
	}
	own_ring_commit(c, words * 8, cnt);
	return true;
}

/* Whether a hit's sample may be built in place (write_in_place): the own
 * ring read forward, no stack of any kind. */
#define IN_PLACE (use_own_ring && !ring_backward && !capture_callchain && !capture_user_stack && \
		  !stack_copy_budget)

/* A tracepoint was hit; ctx is its record, whose first 8 bytes the kernel has
 * replaced with a pointer to the pt_regs of the tracepoint's caller. Their ip
 * is the sample's ip, as perf records it (no stack walk); a syscall
 * tracepoint's sample is of the task's user regs, as perf samples it.
 * What it returns: 0 would make the kernel skip every perf event on the
 * tracepoint (perf_trace_run_bpf_submit), other users' perf stat and perf
 * record among them; 1 lets them count and sample as if ringtrace were not
 * there. ringtrace's own perf event on it only counts. */
#define KEEP_PERF_EVENTS 1

SEC("tracepoint")
int on_tracepoint(void *ctx)
{
	__u32 idx = only_tracepoint_event >= 0 ? only_tracepoint_event
					       : (__u32)bpf_get_attach_cookie(ctx),
	      cpu = bpf_get_smp_processor_id();
	__u64 pid_tgid = task_pid_tgid(bpf_get_current_task_btf());
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct sample_words *s = bpf_map_lookup_elem(&scratch, &cpu);
	__u32 n, raw_size, padded, at, last;
	__u64 now, *count;
	bool syscall;
	__u8 *raw;

	if (!ev || !s || !in_scope(pid_tgid, cpu))
		return KEEP_PERF_EVENTS;
	if (ev->flags & RT_EVENT_FILTERED) {
		/* as the kernel filters a perf event's hits before it counts
		 * them towards -c's period */
		int pass = trace_filter_passes(ctx, idx, ev, cpu, (__u32)pid_tgid);
		struct rt_cpu_counters *c;

		if (pass <= 0 && (c = bpf_map_lookup_elem(&counters, &(__u32){ 0 }))) {
			if (pass < 0)
				c->filter_overrun++;
			else
				c->filtered++;
		}
		if (!pass)
			return KEEP_PERF_EVENTS;
	}
	if (ev->period > 1) {
		count = bpf_map_lookup_elem(&hits, &idx);
		if (!count || ++*count % ev->period)
			return KEEP_PERF_EVENTS;
	}
	syscall = ev->flags & RT_EVENT_SYSCALL;
	now = bpf_ktime_get_ns();
	if (IN_PLACE && !ev->nr_dynamic) {
		raw_size = ev->fixed_size;
		barrier_var(raw_size);
		if (raw_size >= 8 && raw_size <= RT_DIRECT_RAW_WORDS * 8 &&
		    write_in_place(ctx, ev, pid_tgid, cpu, now, syscall, raw_size))
			return KEEP_PERF_EVENTS;
	}
	/* a kept hit stands for the period hits it was picked from */
	n = begin_sample(ctx, s, ev, 0, syscall, NULL, pid_tgid, cpu, now,
			 ev->period > 1 ? ev->period : 1);
	if (n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		return KEEP_PERF_EVENTS;
	at = n;
	raw = (__u8 *)&s->w[at] + 4;
	/* the fixed part; the masks, behind opaque copies, are bounds the
	 * verifier sees and clang cannot drop */
	raw_size = ev->fixed_size;
	barrier_var(raw_size);
	raw_size &= RT_MAX_RAW - 1;
	if (raw_size < 8)
		return KEEP_PERF_EVENTS;
	if (ev->nr_dynamic) {
		/* the dynamic fields' extent is read from a first copy */
		if (bpf_probe_read_kernel(raw, raw_size, ctx))
			return KEEP_PERF_EVENTS;
		raw_size = raw_record_size(ev, raw);
		barrier_var(raw_size);
		raw_size &= RT_MAX_RAW - 1;
	}
	/* u32 size, then the bytes, zero-padded so the field ends 8-byte aligned */
	padded = padded_raw_size(raw_size);
	last = at + (4 + padded) / 8 - 1;
	barrier_var(last);
	if (last >= RT_SAMPLE_MAX_WORDS)
		return KEEP_PERF_EVENTS;
	s->w[last] = 0;
	if (!ev->nr_dynamic && raw_size <= RT_DIRECT_RAW_WORDS * 8)
		copy_record_words(ctx, raw, raw_size);
	else if (bpf_probe_read_kernel(raw, raw_size, ctx))
		return KEEP_PERF_EVENTS;
	((struct rt_sample_head *)s->w)->ip = tracepoint_ip(ctx, syscall);
	finish_raw_field(&s->w[at], ev, pid_tgid, padded);
	n = last + 1;
	if (capture_user_stack || stack_copy_budget)
		n = append_user_stack(s, n, NULL, capture_cgroup ? 8 : 0);
	submit_sample(ctx, s, n, ev, syscall, pid_tgid, cpu, now, false);
	return KEEP_PERF_EVENTS;
}

/* Children of a followed process are followed too (perf's inherit). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, zero = 0;
	__u8 yes = 1;

	if (ptgid == ctgid || !bpf_map_lookup_elem(&target_tgids, &ptgid))
		return 0;
	if (bpf_map_update_elem(&target_tgids, &ctgid, &yes, BPF_NOEXIST)) {
		struct rt_cpu_counters *cnt = bpf_map_lookup_elem(&counters, &zero);

		if (cnt)
			cnt->follow_failed++;
	}
	return 0;
}

/* The command ringtrace runs is admitted once it has exec'd it, as perf's
 * enable_on_exec: never sampled as ringtrace's child before. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(admit_on_exec, struct task_struct *task)
{
	__u32 tgid = task->tgid, tid = task->pid;
	__u8 *tg = bpf_map_lookup_elem(&target_tgids, &tgid);
	__u8 *t = bpf_map_lookup_elem(&target_tids, &tid);

	if (tg)
		*tg = 1;
	if (t)
		*t = 1;
	return 0;
}

/* Set by the loader: followed processes leave the target set at their exit. */
const volatile bool follow_forks = false;

/* A process whose last thread exits is marked gone in the target set (when
 * followed), still in scope for what it does from its exit on (its own
 * sched_process_exit, which may run after this program, its last
 * sched_stat_runtime), as perf's events, which close at its exit, see them;
 * and has no mappings left for the unwinder (with -g). */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(forget_exit, struct task_struct *task)
{
	__u32 tgid = task->tgid;
	__u8 *tg;

	if (task->signal->live.counter != 0)
		return 0;
	if (follow_forks && (tg = bpf_map_lookup_elem(&target_tgids, &tgid)))
		*tg = RT_TARGET_EXITED;
	if (unwind_ehframe) {
		bpf_map_delete_elem(&process_mappings, &tgid);
		mappings_changed(tgid);
	}
	return 0;
}

/* A followed process leaves the target set once its leader is freed
 * (reaped, and gone from every CPU). */
SEC("tp_btf/sched_process_free")
int BPF_PROG(forget_free, struct task_struct *task)
{
	__u32 tgid = task->tgid;

	if (task->pid == tgid)
		bpf_map_delete_elem(&target_tgids, &tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
