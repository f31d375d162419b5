/* SPDX-License-Identifier: GPL-2.0-only */
/* trace_filter.bpf.h: record --filter in the kernel: a tracepoint hit's record
 * copied and run through its event's compiled filter (filter_program.h) before
 * anything is reserved for it; maps defined in sampler.bpf.c. */
#ifndef RINGTRACE_TRACE_FILTER_BPF_H
#define RINGTRACE_TRACE_FILTER_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sample_record.h"
#include "filter_program.h"

/* Each filtered event's filter, by its number (resized to the events). */
struct event_filters_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_filter);
};
extern struct event_filters_map event_filters SEC(".maps");

/* Where a filter reads: the hit's record, and a string it compares. */
struct filter_scratch {
	__u8 rec[RT_FILTER_RECORD_BYTES];
	char str[RT_FILTER_STRING_BYTES];
};

struct filter_scratch_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct filter_scratch);
};
extern struct filter_scratch_map filter_scratch SEC(".maps");

/* The bytes of a tracepoint record: its fixed part and its dynamic data. */
static __always_inline __u32 raw_record_size(const struct rt_event *ev, const __u8 *copy)
{
	__u32 size = ev->fixed_size;

	for (int i = 0; i < RT_MAX_DYNAMIC_FIELDS; i++) {
		__u32 off, loc, end;

		if (i >= ev->nr_dynamic)
			break;
		off = ev->dynamic_offset[i];
		if (off > RT_MAX_RAW - 4)
			break;
		if (bpf_probe_read_kernel(&loc, sizeof(loc), copy + off))
			break;
		end = (loc & 0xffff) + (loc >> 16);
		if (ev->dynamic_relative & (1u << i))
			end += off + 4;
		if (end > size)
			size = end;
	}
	return size > RT_MAX_RAW - 1 ? RT_MAX_RAW - 1 : size;
}

/* One evaluation, its state between the steps of bpf_loop. */
struct filter_run {
	struct rt_filter *f;
	struct filter_scratch *fs;
	__u32 rec_size;
	__u32 cpu;
	__u32 pc;       /* the comparison being evaluated */
	__u32 matching; /* its string is being matched (g) */
	int verdict;    /* 1 keep, 0 leave out, -1 not decided */
	struct rt_filter_glob g;
};

/* Copies comparison p's string into fs->str; its length (0 if unreadable,
 * as the kernel's filter reads a string it cannot fetch). */
static __always_inline __u32 filter_fetch_string(struct filter_run *r,
						 const struct rt_filter_pred *p)
{
	struct filter_scratch *fs = r->fs;
	__u32 start = 0, max = 0, size;
	const void *from;
	__u64 ptr;
	long n;

	switch (p->operand) {
	case RT_FILTER_COMM:
		n = bpf_get_current_comm(fs->str, 16) ? 0 : 16;
		fs->str[15] = 0;
		if (!n)
			return 0;
		for (int i = 0; i < 16; i++)
			if (!fs->str[i])
				return i;
		return 15;
	case RT_FILTER_KERNEL_STRING:
	case RT_FILTER_USER_STRING:
		ptr = rt_filter_number(p, fs->rec, r->rec_size);
		n = p->operand == RT_FILTER_USER_STRING
			    ? bpf_probe_read_user_str(fs->str, sizeof(fs->str), (const void *)ptr)
			    : bpf_probe_read_kernel_str(fs->str, sizeof(fs->str), (const void *)ptr);
		return n > 0 ? (__u32)n - 1 : 0;
	default:
		if (rt_filter_string_at(p, fs->rec, r->rec_size, &start, &max))
			return 0;
		/* its NUL too, in fs->str's first RT_FILTER_STRING_BYTES - 1
		 * bytes: the mask is the bound the verifier sees */
		size = max < RT_FILTER_STRING_BYTES - 2 ? max + 1 : RT_FILTER_STRING_BYTES - 1;
		from = fs->rec + (start & (RT_FILTER_RECORD_BYTES - 1));
		n = bpf_probe_read_kernel_str(fs->str, size & (RT_FILTER_STRING_BYTES - 1), from);
		return n > 0 ? (__u32)n - 1 : 0;
	}
}

/* One step of bpf_loop: a comparison of numbers, the start of one of
 * strings, or one character of it. */
static int filter_step(__u32 i, void *ctx)
{
	struct filter_run *r = ctx;
	const struct rt_filter_pred *p;
	__u32 pc = r->pc;
	int holds;
	__u8 next;

	if (pc >= RT_FILTER_MAX_PREDS) {
		r->verdict = 1;
		return 1;
	}
	p = &r->f->pred[pc];
	if (r->matching) {
		holds = rt_filter_glob_step(&r->g, p, r->fs->str, r->f->pattern[pc]);
		if (holds < 0)
			return 0;
		r->matching = 0;
		holds ^= p->cmp == RT_FILTER_NE;
	} else if (rt_filter_is_string(p->operand)) {
		rt_filter_glob_start(&r->g, p, filter_fetch_string(r, p));
		r->matching = 1;
		return 0;
	} else {
		holds = rt_filter_compare(p, p->operand == RT_FILTER_ON_CPU
						     ? r->cpu
						     : rt_filter_number(p, r->fs->rec, r->rec_size));
	}
	next = rt_filter_next(p, holds);
	if (next == RT_FILTER_ACCEPT || next == RT_FILTER_REJECT) {
		r->verdict = next == RT_FILTER_ACCEPT;
		return 1;
	}
	r->pc = next;
	return 0;
}

/* Runs event idx's filter over the record in fs (rec_size bytes): 1 keep,
 * 0 leave out, -1 kept because the filter ran out of steps. A global
 * function, which the verifier checks once. */
__noinline int trace_filter_run(struct filter_scratch *fs, __u32 rec_size, __u32 idx, __u32 cpu)
{
	struct filter_run r = { .fs = fs, .rec_size = rec_size, .cpu = cpu, .verdict = -1 };

	r.f = bpf_map_lookup_elem(&event_filters, &idx);
	if (!r.f || !fs)
		return 1;
	bpf_loop(RT_FILTER_MAX_STEPS, filter_step, &r, 0);
	return r.verdict;
}

/* Whether the hit whose record is ctx passes event idx's filter, as
 * trace_filter_run: its record is copied first, the dynamic data too when
 * it has any. The kernel has put a pt_regs pointer over the record's first
 * 8 bytes (a syscall's are its own layout's), so the common fields are
 * written as the sample's are: the event's type, the current thread's pid,
 * flags and preempt count 0. */
static __always_inline int trace_filter_passes(void *ctx, __u32 idx, const struct rt_event *ev,
					       __u32 cpu, __u32 tid)
{
	struct {
		__u16 type;
		__u8 flags;
		__u8 preempt_count;
		__s32 pid;
	} common = { .type = ev->tp_type, .pid = (__s32)tid };
	__u32 zero = 0, size = ev->fixed_size;
	struct filter_scratch *fs = bpf_map_lookup_elem(&filter_scratch, &zero);

	if (!fs)
		return 1;
	size &= RT_FILTER_RECORD_BYTES - 1;
	if (bpf_probe_read_kernel(fs->rec, size, ctx))
		return 1;
	if (ev->nr_dynamic) {
		size = raw_record_size(ev, fs->rec);
		barrier_var(size); /* keeps the mask, which clang thinks redundant */
		if (bpf_probe_read_kernel(fs->rec, size & (RT_FILTER_RECORD_BYTES - 1), ctx))
			return 1;
	}
	__builtin_memcpy(fs->rec, &common, sizeof(common));
	return trace_filter_run(fs, size & (RT_FILTER_RECORD_BYTES - 1), idx, cpu);
}

#endif
