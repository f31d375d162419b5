/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_unwind.bpf.h: unwinds a user stack in the kernel from the rows the
 * loader compiled from .eh_frame, frame pointers where there are none. */
#ifndef RINGTRACE_EHFRAME_UNWIND_BPF_H
#define RINGTRACE_EHFRAME_UNWIND_BPF_H

#include "unwind_maps.h"

/* Set by the loader: --call-graph ehframe. */
const volatile bool unwind_ehframe = false;

/* Every file's rows, one slice each (resized by --unwind-mem). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_row);
} unwind_rows SEC(".maps");

/* Each process's executable mappings, by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* resized by the loader */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
} process_mappings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_counters);
} unwind_counters SEC(".maps");

/* The highest user address on x86-64 (4-level paging, and 5-level's low half). */
#define USER_ADDR_MAX 0x00ffffffffffffffULL

/* The state of one walk, on the BPF stack of the sampling program. */
struct unwind_walk {
	struct sample_words *s;
	struct rt_process_mappings *pm;
	__u64 ip, sp, bp;
	__u32 first;  /* the word the first frame goes to */
	__u32 frames; /* frames written */
	bool exact_ip; /* the first frame, or the one a signal interrupted */
	bool done;
	/* what the walk counted, added to unwind_counters at its end */
	__u32 table_frames, fp_frames, no_mapping, no_table, expression, signal_frames;
	__u8 end_reason; /* 0 ok, else an index into the counters below */
};

enum { END_NONE, END_OUTERMOST, END_READ_FAILED, END_BAD_FRAME, END_TRUNCATED };

/* A binary search among a process's mappings for the one holding pc. */
struct mapping_search {
	const struct rt_process_mappings *pm;
	__u64 pc;
	__u32 lo, hi;
	__s32 found;
};

/* One step of it, as bpf_loop's body (see row_search_step). */
static long mapping_search_step(__u32 i, void *arg)
{
	struct mapping_search *r = arg;
	const struct rt_unwind_mapping *m;
	__u32 mid;

	(void)i;
	if (r->lo >= r->hi)
		return 1;
	mid = (r->lo + r->hi) / 2;
	barrier_var(mid); /* a bound the verifier sees, kept by clang */
	if (mid >= RT_UNWIND_MAX_MAPPINGS)
		return 1;
	m = &r->pm->m[mid];
	if (r->pc < m->start) {
		r->hi = mid;
	} else if (r->pc >= m->end) {
		r->lo = mid + 1;
	} else {
		r->found = (__s32)mid;
		return 1;
	}
	return 0;
}

/* The mapping of pm covering pc, or NULL. */
static __always_inline const struct rt_unwind_mapping *
find_mapping(const struct rt_process_mappings *pm, __u64 pc)
{
	struct mapping_search r = { pm, pc, 0, pm->nr, -1 };
	__s32 found;

	bpf_loop(RT_UNWIND_MAPPING_STEPS, mapping_search_step, &r, 0);
	found = r.found;
	if (found < 0 || found >= RT_UNWIND_MAX_MAPPINGS)
		return NULL;
	return &pm->m[found];
}

/* A binary search among rows: rows[lo].pc <= vaddr < rows[hi].pc. */
struct row_search {
	__u32 lo, hi, vaddr;
};

/* One step of it, as bpf_loop's body: the verifier checks one step, where
 * an unrolled search would make it walk every path. */
static long row_search_step(__u32 i, void *arg)
{
	struct row_search *r = arg;
	const struct rt_unwind_row *row;
	__u32 mid;

	(void)i;
	if (r->hi - r->lo <= 1)
		return 1;
	mid = r->lo + (r->hi - r->lo) / 2;
	row = bpf_map_lookup_elem(&unwind_rows, &mid);
	if (!row)
		return 1;
	if (row->pc <= r->vaddr)
		r->lo = mid;
	else
		r->hi = mid;
	return 0;
}

/* The last row of [first, first + nr) whose pc <= vaddr, or NULL. */
static __always_inline const struct rt_unwind_row *find_row(__u32 first, __u32 nr, __u32 vaddr)
{
	struct row_search r = { first, first + nr, vaddr };
	const struct rt_unwind_row *row = bpf_map_lookup_elem(&unwind_rows, &first);

	if (!row || vaddr < row->pc)
		return NULL;
	bpf_loop(RT_UNWIND_ROW_STEPS, row_search_step, &r, 0);
	return bpf_map_lookup_elem(&unwind_rows, &r.lo);
}

static __always_inline bool read_user_word(__u64 addr, __u64 *out)
{
	return bpf_probe_read_user(out, sizeof(*out), (const void *)addr) == 0;
}

/* One step up by frame pointers: rbp points at the saved rbp, the return
 * address above it. */
static __always_inline int step_by_frame_pointer(struct unwind_walk *w)
{
	__u64 saved[2];

	w->fp_frames++;
	if (!w->bp || w->bp < w->sp || w->bp > USER_ADDR_MAX) {
		w->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (bpf_probe_read_user(saved, sizeof(saved), (const void *)w->bp)) {
		w->end_reason = END_READ_FAILED;
		return 1;
	}
	w->sp = w->bp + 16;
	w->bp = saved[0];
	w->ip = saved[1];
	w->exact_ip = false;
	return 0;
}

/* The registers a signal interrupted, from the rt_sigframe's ucontext at sp
 * (uc_mcontext at 40; rbp, rsp, rip at 80, 120, 128 of the sigcontext). */
static __always_inline int step_over_signal(struct unwind_walk *w)
{
	__u64 mc = w->sp + 40, bp, sp, ip;

	if (!read_user_word(mc + 80, &bp) || !read_user_word(mc + 120, &sp) ||
	    !read_user_word(mc + 128, &ip)) {
		w->end_reason = END_READ_FAILED;
		return 1;
	}
	w->signal_frames++;
	w->bp = bp;
	w->sp = sp;
	w->ip = ip;
	w->exact_ip = true;
	return 0;
}

/* One step up by the row covering the frame's pc. */
static __always_inline int step_by_row(struct unwind_walk *w, const struct rt_unwind_row *row)
{
	__u64 cfa, ra, bp = w->bp;

	switch (row->cfa) {
	case RT_CFA_RSP:
		cfa = w->sp + row->cfa_offset;
		break;
	case RT_CFA_RBP:
		cfa = w->bp + row->cfa_offset;
		break;
	case RT_CFA_PLT10:
		cfa = w->sp + 8 + ((w->ip & 15) >= 10 ? 8 : 0);
		break;
	case RT_CFA_PLT11:
		cfa = w->sp + 8 + ((w->ip & 15) >= 11 ? 8 : 0);
		break;
	case RT_CFA_SIGNAL:
		return step_over_signal(w);
	case RT_CFA_OUTERMOST:
		w->end_reason = END_OUTERMOST;
		return 1;
	case RT_CFA_EXPRESSION:
		w->expression++;
		return step_by_frame_pointer(w);
	default:
		w->no_table++;
		return step_by_frame_pointer(w);
	}
	if (cfa <= w->sp || cfa > USER_ADDR_MAX) {
		w->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (!read_user_word(cfa - 8, &ra)) {
		w->end_reason = END_READ_FAILED;
		return 1;
	}
	if (row->rbp == RT_RBP_SAVED) {
		if (!read_user_word(cfa + row->rbp_offset, &bp)) {
			w->end_reason = END_READ_FAILED;
			return 1;
		}
	} else if (row->rbp == RT_RBP_UNDEFINED) {
		bp = 0;
	}
	w->table_frames++;
	w->sp = cfa;
	w->bp = bp;
	w->ip = ra;
	w->exact_ip = false;
	return 0;
}

/* bpf_loop's body: writes the frame at w->ip, then steps to its caller.
 * Returns 1 to stop. */
static long unwind_one_frame(__u32 i, void *arg)
{
	struct unwind_walk *w = arg;
	const struct rt_unwind_mapping *m;
	const struct rt_unwind_row *row;
	__u32 n = w->first + i;
	__u64 pc;

	/* bounds come from i, which the verifier does not know: counters of
	 * the walk compared here would make it check every iteration apart */
	if (!w->ip || w->ip > USER_ADDR_MAX) {
		if (i == 0)
			w->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (i >= RT_MAX_STACK_DEPTH || n >= SCRATCH_WORDS) {
		w->end_reason = END_TRUNCATED;
		return 1;
	}
	w->s->w[n] = w->ip;
	w->frames = i + 1;
	/* a return address is after its call: look up the call */
	pc = w->exact_ip ? w->ip : w->ip - 1;
	m = find_mapping(w->pm, pc);
	if (!m) {
		w->no_mapping++;
		return step_by_frame_pointer(w);
	}
	if (!m->nr_rows) {
		w->no_table++;
		return step_by_frame_pointer(w);
	}
	row = find_row(m->first_row, m->nr_rows, (__u32)(pc - m->bias));
	if (!row) {
		w->no_table++;
		return step_by_frame_pointer(w);
	}
	return step_by_row(w, row);
}

/* Appends "PERF_CONTEXT_USER, frames..." at word n, unwound from the user
 * registers: the perf event's when sampled in user mode (user_regs, x86-64
 * pt_regs words), else the task's saved ones; by the kernel's frame pointer
 * walk for a process whose mappings are not known. Returns the new word count. */
static __always_inline __u32 append_unwound_user_stack(void *ctx, struct sample_words *s,
							__u32 n, const __u64 *user_regs,
							__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct unwind_walk w = { .s = s, .exact_ip = true };
	struct rt_unwind_counters *c;
	__u32 zero = 0;

	__u32 frames, end;

	/* room for the marker and every frame in the callchain's words */
	if (n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS - 1 - RT_MAX_STACK_DEPTH ||
	    (BPF_CORE_READ(task, flags) & PF_KTHREAD))
		return n;
	c = bpf_map_lookup_elem(&unwind_counters, &zero);
	if (!c)
		return n;
	if (user_regs) {
		w.ip = user_regs[16];
		w.sp = user_regs[19];
		w.bp = user_regs[4];
	} else {
		struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

		w.ip = BPF_CORE_READ(regs, ip);
		w.sp = BPF_CORE_READ(regs, sp);
		w.bp = BPF_CORE_READ(regs, bp);
	}
	c->samples++;
	w.pm = bpf_map_lookup_elem(&process_mappings, &tgid);
	if (!w.pm) {
		/* not known yet: frame pointers, as the kernel walks them */
		c->no_process++;
		return append_stack(ctx, s, n, PERF_CONTEXT_USER, BPF_F_USER_STACK);
	}
	s->w[n] = PERF_CONTEXT_USER;
	w.first = n + 1;
	bpf_loop(RT_MAX_STACK_DEPTH + 1, unwind_one_frame, &w, 0);
	c->frames += w.frames;
	c->table_frames += w.table_frames;
	c->fp_frames += w.fp_frames;
	c->no_mapping += w.no_mapping;
	c->no_table += w.no_table;
	c->expression += w.expression;
	c->signal_frames += w.signal_frames;
	if (w.end_reason == END_OUTERMOST)
		c->outermost++;
	else if (w.end_reason == END_READ_FAILED)
		c->read_failed++;
	else if (w.end_reason == END_BAD_FRAME)
		c->bad_frame++;
	else if (w.end_reason == END_TRUNCATED)
		c->truncated++;
	frames = w.frames;
	if (!frames || frames > RT_MAX_STACK_DEPTH)
		return n;
	end = n + 1 + frames;
	barrier_var(end); /* checked as the word count the caller bounds */
	if (end > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		return n;
	return end;
}

#endif
