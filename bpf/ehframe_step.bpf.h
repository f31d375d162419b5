/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_step.bpf.h: one step of a walk from a frame to its caller: by the row's CFA
 * rule, over a signal frame, or by frame pointers; the user stack read in
 * windows */
#ifndef RINGTRACE_EHFRAME_STEP_BPF_H
#define RINGTRACE_EHFRAME_STEP_BPF_H

#include "ehframe_state.bpf.h"

/* How a walk ends at a read of the stack that failed: in an exec, the old
 * image's stack is gone with its address space (the sampled registers are
 * still the old image's until the new one starts). */
static __always_inline __u8 read_failure(void)
{
	return BPF_CORE_READ_BITFIELD(bpf_get_current_task_btf(), in_execve) ? END_IN_EXEC
										: END_READ_FAILED;
}

/* A word of user (or kernel) memory read alone. Helpers write into map
 * memory only: this kernel's verifier fails ("verifier bug: stack slot")
 * on a helper writing a bpf_loop body's own stack in some walks. */
static __always_inline bool read_word(struct stack_window *win, __u64 addr, bool user, __u64 *out)
{
	__u64 *word = &win->word;

	if ((user ? bpf_probe_read_user(word, sizeof(*word), (const void *)addr)
		  : bpf_probe_read_kernel(word, sizeof(*word), (const void *)addr)))
		return false;
	*out = *word;
	return true;
}

/* How many bytes a refill for the word at addr, from `from`, copies: the
 * first of a walk STACK_FIRST_READ_BYTES (all the frames of most stacks), a
 * later one the window; never past what is known to be mapped: the main
 * thread's stack up to where it started (mm->start_stack, the stack pointer
 * at the program's entry: below it the stack grew page by page), another
 * stack (a thread's, a signal stack, a coroutine's) or a word above that up
 * to the end of addr's page. A read of a page not mapped costs a fault
 * (~1.4 us here, where a read costs ~100 ns). */
static __always_inline __u64 refill_bytes(const struct stack_window *win, __u64 addr, __u64 from)
{
	__u64 want = win->reads ? STACK_WINDOW_BYTES : STACK_FIRST_READ_BYTES, room;

	if (addr + 8 <= win->top && win->top - from <= MAIN_STACK_MAX_BYTES)
		room = win->top - from;
	else
		room = STACK_PAGE - (from & (STACK_PAGE - 1));
	return (want < room ? want : room) & ~7ULL; /* whole words */
}

/* The stack word at addr, from the window, refilled from addr when addr is
 * not in it (again to the end of its page alone if the refill failed). */
static __always_inline bool stack_word(struct stack_window *win, __u64 addr, __u64 *out)
{
	__u64 off = addr - win->base, len, in_page, from;

	if (addr & 7)
		return read_word(win, addr, true, out);
	if (addr >= win->base && off < win->len) {
		*out = win->w[(off / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
		return true;
	}
	from = addr - STACK_LOOKBACK_BYTES;
	if (addr < STACK_LOOKBACK_BYTES || from < (addr & ~(__u64)(STACK_PAGE - 1)))
		from = addr & ~(__u64)(STACK_PAGE - 1);
	len = refill_bytes(win, addr, from);
	in_page = STACK_PAGE - (from & (STACK_PAGE - 1));
	win->reads++;
	win->len = 0;
	barrier_var(len);
	if (len < addr + 8 - from || len > STACK_WINDOW_BYTES)
		return false;
	if (bpf_probe_read_user(win->w, len, (const void *)from)) {
		if (len <= in_page)
			return false;
		len = in_page;
		barrier_var(len);
		if (len < 8 || len > STACK_WINDOW_BYTES ||
		    bpf_probe_read_user(win->w, len, (const void *)from))
			return false;
	}
	win->base = from;
	win->len = len;
	*out = win->w[((addr - from) / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
	return true;
}

/* The next frame found by frame pointers, for why: rbp points at the saved
 * rbp, the return address above it; up the stack, but for a stack switch,
 * whose caller's frame is on another stack (Go's goroutine stacks are
 * anywhere in its heap). */
static __always_inline int step_by_frame_pointer(struct frame_regs *r, struct stack_window *win,
						 __u8 why)
{
	__u64 bp, ip;

	if (!r->bp || (r->bp < r->sp && why != FP_STACK_SWITCH) || r->bp > USER_ADDR_MAX) {
		r->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (!stack_word(win, r->bp, &bp) || !stack_word(win, r->bp + 8, &ip)) {
		r->end_reason = read_failure();
		return 1;
	}
	r->sp = r->bp + 16;
	r->bp = bp;
	r->ip = ip;
	r->exact_ip = false;
	r->regs_at = 0;
	r->found = FOUND_FP;
	r->fp_reason = why;
	return 0;
}

/* The registers a signal interrupted, from the rt_sigframe's sigcontext at sp. */
static __always_inline int step_over_signal(struct frame_regs *r, struct stack_window *win)
{
	__u64 sc = r->sp + SIGFRAME_SIGCONTEXT, *regs = win->signal;

	if (bpf_probe_read_user(regs, sizeof(win->signal),
				(const void *)(sc + SIGCONTEXT_FIRST_READ * 8))) {
		r->end_reason = read_failure();
		return 1;
	}
	r->bp = regs[0];
	r->bx = regs[1];
	r->sp = regs[5];
	r->ip = regs[6];
	r->exact_ip = true;
	r->regs_at = sc;
	r->regs_in_user = true;
	r->found = FOUND_SIGNAL;
	return 0;
}

/* DWARF register reg of this frame into *value, where every register of the
 * frame is known. */
static __always_inline bool frame_register(struct frame_regs *r, struct stack_window *win, __u8 reg,
					   __u64 *value)
{
	if (!r->regs_at || reg >= DW_REGS)
		return false;
	if (r->regs_in_user)
		return read_word(win, r->regs_at + word_of_dwarf(SIGCONTEXT_WORDS_OF_DWARF, reg) * 8,
				 true, value);
	return read_word(win, r->regs_at + word_of_dwarf(PT_REGS_WORDS_OF_DWARF, reg) * 8, false,
			 value);
}

/* The caller's value of a callee-saved register (rbp, rbx) by the row's rule. */
static __always_inline bool caller_register(struct stack_window *win, __u8 how, __s16 offset,
					    __u64 cfa, __u64 *value)
{
	if (how == RT_RBP_SAVED)
		return stack_word(win, cfa + offset, value);
	if (how == RT_RBP_UNDEFINED)
		*value = 0;
	return true;
}

/* One step up by the row covering the frame's pc. */
static __always_inline int step_by_row(struct frame_regs *r, struct stack_window *win,
				       const struct rt_unwind_row *row)
{
	__u64 cfa, ra, bp = r->bp, bx = r->bx;

	switch (row->cfa) {
	case RT_CFA_RSP:
		cfa = r->sp + row->cfa_offset;
		break;
	case RT_CFA_RBP:
		cfa = r->bp + row->cfa_offset;
		break;
	case RT_CFA_RBX:
		cfa = r->bx + row->cfa_offset;
		break;
	case RT_CFA_REG:
		if (!frame_register(r, win, row->cfa_reg & ~RT_ROW_DEBUG_FRAME, &cfa))
			return step_by_frame_pointer(r, win, FP_EXPRESSION);
		cfa += row->cfa_offset;
		break;
	case RT_CFA_RSP_RA_REG:
		/* __vfork's: the return address popped into a register, the
		 * caller's rsp where it was (the CFA may be rsp itself) */
		if (!frame_register(r, win, row->cfa_reg & ~RT_ROW_DEBUG_FRAME, &ra))
			return step_by_frame_pointer(r, win, FP_EXPRESSION);
		cfa = r->sp + row->cfa_offset;
		if (cfa < r->sp || cfa > USER_ADDR_MAX) {
			r->end_reason = END_BAD_FRAME;
			return 1;
		}
		goto caller;
	case RT_CFA_PLT10:
		cfa = r->sp + 8 + ((r->ip & 15) >= 10 ? 8 : 0);
		break;
	case RT_CFA_PLT11:
		cfa = r->sp + 8 + ((r->ip & 15) >= 11 ? 8 : 0);
		break;
	case RT_CFA_SIGNAL:
		return step_over_signal(r, win);
	case RT_CFA_OUTERMOST:
		r->end_reason = END_OUTERMOST;
		return 1;
	case RT_CFA_EXPRESSION:
		return step_by_frame_pointer(r, win, FP_EXPRESSION);
	case RT_CFA_STACK_SWITCH:
		return step_by_frame_pointer(r, win, FP_STACK_SWITCH);
	default:
		return step_by_frame_pointer(r, win, FP_NO_TABLE);
	}
	if (cfa <= r->sp || cfa > USER_ADDR_MAX) {
		r->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (!stack_word(win, cfa - 8, &ra)) {
		r->end_reason = read_failure();
		return 1;
	}
caller:
	if (!caller_register(win, row->rbp, row->rbp_offset, cfa, &bp) ||
	    !caller_register(win, row->rbx, row->rbx_offset, cfa, &bx)) {
		r->end_reason = read_failure();
		return 1;
	}
	r->sp = cfa;
	r->bp = bp;
	r->bx = bx;
	r->ip = ra;
	r->exact_ip = false;
	r->regs_at = 0;
	r->found = FOUND_TABLE;
	r->debug_frame = !!(row->cfa_reg & RT_ROW_DEBUG_FRAME);
	return 0;
}

/* One step of a walk from the frame r to its caller: by row, or by frame
 * pointers (for why) without one. 1 when the walk ends there (why in
 * r->end_reason). A global function, which the verifier checks once, not
 * for every state of every walk: its steps' paths no longer multiply the
 * walk's (the start of -g took 1.5 s of verifying, 542k instructions). */
__noinline int unwind_step(struct frame_regs *r, struct stack_window *win,
			   const struct rt_unwind_row *row, __u8 why)
{
	if (!r || !win)
		return 1;
	if (!row)
		return step_by_frame_pointer(r, win, why);
	return step_by_row(r, win, row);
}

#endif
