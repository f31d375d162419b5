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

/* What fired: which of the programs below, and so which words the raw
 * record holds. */
enum probe_kind { PROBE_UPROBE, PROBE_URETPROBE, PROBE_USDT };

/* The raw record's words after its common header, in rec: a uprobe's ip and
 * the x86-64 integer argument registers, a uretprobe's function, return
 * address and return value, a USDT probe's ip and arguments (as its note's
 * specs say, fetched by libbpf's bpf_usdt_arg). Returns how many. */
static __always_inline __u32 probe_words(struct pt_regs *ctx, enum probe_kind kind,
					 const struct rt_event *ev, struct rt_probe_record *rec)
{
	__u32 nr_args;

	if (kind == PROBE_URETPROBE) {
		rec->word[0] = bpf_get_func_ip(ctx);
		rec->word[1] = PT_REGS_IP(ctx);
		rec->word[2] = PT_REGS_RC(ctx);
		return RT_RETPROBE_HEAD_WORDS + 1;
	}
	rec->word[0] = PT_REGS_IP(ctx);
	if (kind == PROBE_UPROBE) {
		rec->word[1] = PT_REGS_PARM1(ctx);
		rec->word[2] = PT_REGS_PARM2(ctx);
		rec->word[3] = PT_REGS_PARM3(ctx);
		rec->word[4] = PT_REGS_PARM4(ctx);
		rec->word[5] = PT_REGS_PARM5(ctx);
		rec->word[6] = ctx->r9; /* the sixth: libbpf 1.1 has no PT_REGS_PARM6 */
		return RT_PROBE_HEAD_WORDS + RT_UPROBE_ARGS;
	}
	nr_args = ev->nr_args;
	if (nr_args > RT_PROBE_MAX_ARGS)
		nr_args = RT_PROBE_MAX_ARGS;
	for (__u32 i = 0; i < RT_PROBE_MAX_ARGS; i++) {
		long v = 0;

		if (i >= nr_args)
			break;
		bpf_usdt_arg(ctx, i, &v);
		rec->word[1 + i] = (__u64)v;
	}
	return RT_PROBE_HEAD_WORDS + nr_args;
}

/* A user-space probe fired (ctx: the task's user registers; idx: its
 * event): a sample of the probed instruction, its raw record built in the
 * CPU's scratch (not on the BPF stack, which the unwinder's frames need) as
 * struct rt_probe_record lays it out. */
static __always_inline int probe_sample(struct pt_regs *ctx, __u32 idx, enum probe_kind kind)
{
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0, n, raw_size, at, last, nr_words;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now, *busy;
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);
	struct sample_words *s = bpf_map_lookup_elem(&probe_scratch, &cpu);
	struct rt_probe_record *rec;
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
	rec = &s->probe;
	rec->common_type = ev->tp_type;
	rec->common_flags = 0;
	rec->common_preempt_count = 0;
	rec->common_pid = (__s32)pid_tgid;
	nr_words = probe_words(ctx, kind, ev, rec);
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
	if (capture_user_stack || stack_copy_budget)
		n = append_user_stack(s, n, (const __u64 *)ctx, capture_cgroup ? 8 : 0);
	submit_sample(ctx, s, n, ev, true, pid_tgid, cpu, now, true);
out:
	__sync_fetch_and_add(busy, -1);
	return 0;
}

/* A uprobe or uretprobe (attach cookie: the event's index): a sample built
 * for each apart (one path for both would have clang merge their loads of
 * ctx into one from an address chosen between two fields, which the
 * verifier refuses). */
SEC("uprobe")
int on_uprobe(struct pt_regs *ctx)
{
	__u32 idx = (__u32)bpf_get_attach_cookie(ctx);
	struct rt_event *ev = bpf_map_lookup_elem(&events, &idx);

	if (!ev)
		return 0;
	if (ev->flags & RT_EVENT_URETPROBE)
		return probe_sample(ctx, idx, PROBE_URETPROBE);
	return probe_sample(ctx, idx, PROBE_UPROBE);
}

/* A USDT probe (its cookie: the event's index). */
SEC("usdt")
int on_usdt(struct pt_regs *ctx)
{
	return probe_sample(ctx, (__u32)bpf_usdt_cookie(ctx), PROBE_USDT);
}
