/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_quick.bpf.h: the walk's quick path: a frame whose row is the frame
 * before's or one kept by its pc, stepped within the stack already read;
 * and how much of the stack the next walk of a process reads first */
#ifndef RINGTRACE_EHFRAME_QUICK_BPF_H
#define RINGTRACE_EHFRAME_QUICK_BPF_H

#include "ehframe_rows.bpf.h"
#include "ehframe_step.bpf.h"

/* What quick_frame returns where it left the frame to unwind_frame */
#define QUICK_NOT_TAKEN (-1)
/* The callchain's words quick_frame writes: those of index at most this (a
 * mask: the index the verifier sees bounded where clang keeps the test of
 * another copy of it; a walk's words stay far below it) */
#define QUICK_WORDS_MASK 8191
_Static_assert(QUICK_WORDS_MASK < SCRATCH_WORDS, "the quick path's words within the scratch");

/* Writes frame i of the walk and steps to its caller, where that is quick:
 * its row the frame before's (a recursion) or the one a walk of this
 * process found at its pc, its mappings as they were (pc_rows); a step by
 * that row whose words are in the window (step_in_window), or the
 * outermost frame's end; no runtime's frames in the process's (CPython's,
 * a JVM's, V8's: walk_state's quick). Returns 0 when it stepped, 1 when the
 * walk ended there, QUICK_NOT_TAKEN with nothing changed but the row kept as
 * the frame before's (unwind_frame then takes the frame). Inline in the walk's loop, where a call costs more than
 * the step (deep's 45 frames took ~200 ns less), without a call of its own:
 * nothing it holds takes a slot in the loop's frame. */
static __always_inline int quick_frame(struct unwind_walk *w, __u32 i)
{
	struct walk_guesses *g = w->guesses;
	struct walk_state *ws = &g->walk;
	__u32 done = i + g->extra_words, n = ws->first + done;
	const struct rt_unwind_row *row;
	bool outermost;
	__u64 pc, cfa;

	if (!ws->quick || !ws->r.ip || ws->r.ip > USER_ADDR_MAX || done >= RT_MAX_STACK_DEPTH ||
	    n > QUICK_WORDS_MASK)
		return QUICK_NOT_TAKEN;
	pc = ws->r.exact_ip ? ws->r.ip : ws->r.ip - 1;
	if (pc == ws->last_pc) {
		row = &g->last_row;
	} else {
		/* (kept as the frame before's even where the step is left to
		 * unwind_frame, which then takes it without a lookup: a row of
		 * the kind this path steps by, or the outermost, keep_pc_row's) */
		row = pc_row_of(g, pc);
		if (!row)
			return QUICK_NOT_TAKEN;
		g->last_row = *row;
		ws->last_pc = pc;
	}
	outermost = row->cfa == RT_CFA_OUTERMOST;
	cfa = outermost ? 0 : window_step_cfa(&ws->r, w->stack, row);
	if (!cfa && !outermost)
		return QUICK_NOT_TAKEN;
	barrier_var(n); /* (the mask kept: clang knows it changes nothing) */
	w->s->w[n & QUICK_WORDS_MASK] = ws->r.ip;
	ws->frames = done + 1;
	count_frame(w);
	ws->quick_tally++;
	if (outermost) {
		ws->r.end_reason = END_OUTERMOST; /* as step_by_row ends it */
		return 1;
	}
	step_in_window(&ws->r, w->stack, row, cfa);
	return 0;
}

/* The next walk of this process reads the window whole at first where this
 * one read its stack more than once (deep's 47 frames, 3 KiB: ~70 ns
 * less), and STACK_FIRST_READ_BYTES again where that would have done (its
 * last frame's sp that far above the first read's start). */
static __always_inline void size_first_read(struct walk_guesses *g)
{
	const struct stack_window *win = &g->stack;

	if (!g->walk.quick || !g->memo.in_use || g->memo.tgid != g->walk.tgid || !win->reads)
		return;
	if (win->reads > 1)
		g->memo.first_read = STACK_WINDOW_BYTES;
	else if (g->walk.r.sp - win->base <= STACK_FIRST_READ_BYTES - STACK_LOOKBACK_BYTES)
		g->memo.first_read = STACK_FIRST_READ_BYTES;
}

#endif
