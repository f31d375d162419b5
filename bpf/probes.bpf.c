/* SPDX-License-Identifier: GPL-2.0-only */
/* probes.bpf.c: on each hit of a uprobe, uretprobe or USDT probe in scope, a
 * PERF_RECORD_SAMPLE of the probed instruction carrying its arguments. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>
#include "sample_output.bpf.h"
#include "scope_filter.bpf.h"

/* Scratch space of the user-space probe programs, one per CPU: they run
 * with migration disabled but may be preempted, and interrupted by the perf
 * event program, so they have their own, held while in use (probe_busy). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, struct sample_words);
} probe_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__type(value, __u64);
} probe_busy SEC(".maps");

/* A user-space probe fired (ctx: the task's user registers): a sample of
 * the probed instruction, its raw record the words of rec (head words, then
 * the arguments) as struct rt_probe_record lays them out. */
static __always_inline int probe_sample(struct pt_regs *ctx, __u32 idx,
					struct rt_probe_record *rec, __u32 nr_words)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, n, raw_size, at, last;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now, *busy;
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct sample_words *s = bpf_map_lookup_elem(&probe_scratch, &cpu);
	struct rt_cpu_counters *cnt;
	__u8 *raw;

	if (!ev || !s || !in_scope(pid_tgid, cpu))
		return 0;
	busy = bpf_map_lookup_elem(&probe_busy, &cpu);
	if (!busy)
		return 0;
	now = bpf_ktime_get_ns();
	if (__sync_fetch_and_add(busy, 1)) {
		/* another probe's sample is being built on this CPU (this
		 * program preempted it): this hit is produced and lost */
		__sync_fetch_and_add(busy, -1);
		cnt = bpf_map_lookup_elem(&counters, &zero);
		if (cnt) {
			__sync_fetch_and_add(&cnt->produced, 1);
			count_loss(cnt, now, !use_perfbuf);
		}
		return 0;
	}
	rec->common_type = ev->tp_type;
	rec->common_flags = 0;
	rec->common_preempt_count = 0;
	rec->common_pid = (__s32)pid_tgid;
	n = begin_sample(ctx, s, ev, PT_REGS_IP(ctx), true, (const __u64 *)ctx, pid_tgid, cpu, now,
			 1);
	if (n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		goto out;
	at = n;
	raw = (__u8 *)&s->w[at] + 4;
	if (nr_words > 2 + RT_PROBE_MAX_ARGS)
		nr_words = 2 + RT_PROBE_MAX_ARGS;
	raw_size = 8 + nr_words * 8;
	/* u32 size, the record, 4 bytes of zeros: the field ends 8-byte aligned */
	last = at + (raw_size + 8) / 8 - 1;
	barrier_var(last);
	if (last >= RT_SAMPLE_MAX_WORDS || last >= SCRATCH_WORDS)
		goto out;
	s->w[last] = 0;
	barrier_var(raw_size);
	if (raw_size > sizeof(*rec))
		goto out;
	if (bpf_probe_read_kernel(raw, raw_size, rec))
		goto out;
	*(__u32 *)&s->w[at] = raw_size + 4;
	n = last + 1;
	if (capture_user_stack)
		n = append_user_stack(s, n, (const __u64 *)ctx, capture_cgroup ? 8 : 0);
	submit_sample(ctx, s, n, ev, true, pid_tgid, cpu, now, true);
out:
	__sync_fetch_and_add(busy, -1);
	return 0;
}

/* A uprobe or uretprobe (attach cookie: the event's index). A uprobe records
 * the x86-64 integer argument registers, a uretprobe the return value. */
SEC("uprobe")
int on_uprobe(struct pt_regs *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct rt_probe_record rec = {};

	if (!ev)
		return 0;
	if (ev->flags & RT_EVENT_URETPROBE) {
		rec.word[0] = bpf_get_func_ip(ctx);
		rec.word[1] = PT_REGS_IP(ctx);
		rec.word[2] = PT_REGS_RC(ctx);
		return probe_sample(ctx, idx, &rec, RT_RETPROBE_HEAD_WORDS + 1);
	}
	rec.word[0] = PT_REGS_IP(ctx);
	rec.word[1] = PT_REGS_PARM1(ctx);
	rec.word[2] = PT_REGS_PARM2(ctx);
	rec.word[3] = PT_REGS_PARM3(ctx);
	rec.word[4] = PT_REGS_PARM4(ctx);
	rec.word[5] = PT_REGS_PARM5(ctx);
	rec.word[6] = ctx->r9; /* the sixth: libbpf 1.1 has no PT_REGS_PARM6 */
	return probe_sample(ctx, idx, &rec, RT_PROBE_HEAD_WORDS + RT_UPROBE_ARGS);
}

/* A USDT probe (its cookie: the event's index): its arguments, fetched by
 * libbpf's bpf_usdt_arg as their specs in the probe's note say. */
SEC("usdt")
int on_usdt(struct pt_regs *ctx)
{
	__u32 idx = (__u32)bpf_usdt_cookie(ctx);
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct rt_probe_record rec = {};
	__u32 nr_args;

	if (!ev)
		return 0;
	nr_args = ev->nr_args;
	if (nr_args > RT_PROBE_MAX_ARGS)
		nr_args = RT_PROBE_MAX_ARGS;
	rec.word[0] = PT_REGS_IP(ctx);
	for (__u32 i = 0; i < RT_PROBE_MAX_ARGS; i++) {
		long v = 0;

		if (i >= nr_args)
			break;
		bpf_usdt_arg(ctx, i, &v);
		rec.word[1 + i] = (__u64)v;
	}
	return probe_sample(ctx, idx, &rec, RT_PROBE_HEAD_WORDS + nr_args);
}
