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
 * first of a walk first_read (STACK_FIRST_READ_BYTES, all the frames of most
 * stacks, or the window where the process's last walk read twice:
 * size_first_read), a later one the window; never past what is known to be mapped: the main
 * thread's stack up to where it started (mm->start_stack, the stack pointer
 * at the program's entry: below it the stack grew page by page), another
 * stack (a thread's, a signal stack, a coroutine's) or a word above that up
 * to the end of addr's page. A read of a page not mapped costs a fault
 * (~1.4 us here, where a read costs ~100 ns). */
static __always_inline __u64 refill_bytes(const struct stack_window *win, __u64 addr, __u64 from)
{
	__u64 want = win->reads || win->first_read > STACK_WINDOW_BYTES ? STACK_WINDOW_BYTES
								   : win->first_read,
	      room;

	if (addr + 8 <= win->top && win->top - from <= MAIN_STACK_MAX_BYTES)
		room = win->top - from;
	else
		room = STACK_PAGE - (from & (STACK_PAGE - 1));
	return (want < room ? want : room) & ~7ULL; /* whole words */
}

/* Whether the window holds the word at addr. */
static __always_inline bool in_window(const struct stack_window *win, __u64 addr)
{
	return !(addr & 7) && addr >= win->base && addr - win->base < win->len;
}

/* The word at addr, which the window holds (in_window). */
static __always_inline __u64 window_at(const struct stack_window *win, __u64 addr)
{
	return win->w[((addr - win->base) / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
}

/* The window refilled from `from` (8-byte aligned) for the word at addr
 * (again to the end of its page alone if the refill failed); false if it
 * could not be. */
static __always_inline bool refill_window(struct stack_window *win, __u64 addr, __u64 from)
{
	__u64 len = refill_bytes(win, addr, from), in_page = STACK_PAGE - (from & (STACK_PAGE - 1));

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
	return true;
}

/* The stack word at addr, from the window, refilled from addr when addr is
 * not in it. */
static __always_inline bool stack_word(struct stack_window *win, __u64 addr, __u64 *out)
{
	__u64 from;

	if (addr & 7)
		return read_word(win, addr, true, out);
	if (!in_window(win, addr)) {
		from = addr - STACK_LOOKBACK_BYTES;
		if (addr < STACK_LOOKBACK_BYTES || from < (addr & ~(__u64)(STACK_PAGE - 1)))
			from = addr & ~(__u64)(STACK_PAGE - 1);
		if (!refill_window(win, addr, from))
			return false;
	}
	*out = window_at(win, addr);
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
	__u64 at = r->regs_at;

	if (!at || reg >= DW_REGS)
		return false;
	if (r->regs_in_user)
		return read_word(win, at + word_of_dwarf(SIGCONTEXT_WORDS_OF_DWARF, reg) * 8, true,
				 value);
	if (at == REGS_AT_TASK)
		at = (__u64)bpf_task_pt_regs(bpf_get_current_task_btf());
	return read_word(win, at + word_of_dwarf(PT_REGS_WORDS_OF_DWARF, reg) * 8, false, value);
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

/* The frame r stepped to its caller by row: the caller's CFA (its sp),
 * return address and saved registers. */
static __always_inline void step_to_caller(struct frame_regs *r, const struct rt_unwind_row *row,
					   __u64 cfa, __u64 ra, __u64 bp, __u64 bx)
{
	r->sp = cfa;
	r->bp = bp;
	r->bx = bx;
	r->ip = ra;
	r->exact_ip = false;
	r->regs_at = 0;
	r->found = FOUND_TABLE;
	r->debug_frame = !!(row->cfa_reg & RT_ROW_DEBUG_FRAME);
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
	step_to_caller(r, row, cfa, ra, bp, bx);
	return 0;
}

/* step_by_row's most common step, taken inline in the walk's loop
 * (quick_frame): a row whose CFA is rsp or rbp plus an offset, every word
 * it reads in the window. The CFA of the frame r where it can be taken so,
 * else 0. */
static __always_inline __u64 window_step_cfa(const struct frame_regs *r,
					     const struct stack_window *win,
					     const struct rt_unwind_row *row)
{
	__u64 cfa;

	if (row->cfa == RT_CFA_RSP)
		cfa = r->sp + row->cfa_offset;
	else if (row->cfa == RT_CFA_RBP)
		cfa = r->bp + row->cfa_offset;
	else
		return 0;
	if (cfa <= r->sp || cfa > USER_ADDR_MAX || !in_window(win, cfa - 8) ||
	    (row->rbp == RT_RBP_SAVED && !in_window(win, cfa + row->rbp_offset)) ||
	    (row->rbx == RT_RBP_SAVED && !in_window(win, cfa + row->rbx_offset)))
		return 0;
	return cfa;
}

/* The caller's value of a callee-saved register (rbp, rbx; callee's its
 * value in the frame) by the row's rule, as caller_register gives it, from
 * the window, which holds it (window_step_cfa). */
static __always_inline __u64 window_register(const struct stack_window *win, __u8 how,
					     __s16 offset, __u64 cfa, __u64 callee)
{
	if (how == RT_RBP_SAVED)
		return window_at(win, cfa + offset);
	return how == RT_RBP_UNDEFINED ? 0 : callee;
}

/* That step, to the CFA window_step_cfa gave: the words read from the
 * window, as step_by_row reads them. */
static __always_inline void step_in_window(struct frame_regs *r, const struct stack_window *win,
					   const struct rt_unwind_row *row, __u64 cfa)
{
	step_to_caller(r, row, cfa, window_at(win, cfa - 8),
		       window_register(win, row->rbp, row->rbp_offset, cfa, r->bp),
		       window_register(win, row->rbx, row->rbx_offset, cfa, r->bx));
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
