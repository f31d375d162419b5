/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_quick.bpf.h: the walk's quick path: a frame whose row is the frame
 * before's or one kept by its pc, stepped within the stack already read; a
 * recursion's frames stepped in one call (quick_run); and how much of the
 * stack the next walk of a process reads first */
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

/* The most frames of a recursion quick_run takes in one call */
#define QUICK_RUN_FRAMES 64

/* last_row's step as quick_run takes it, in g->run; false where it takes
 * none (a CFA by another register, a saved register unaligned). Without a
 * branch on the row's rules: the verifier would follow the run's loop once
 * for each way. */
static __always_inline bool set_run_rule(struct walk_guesses *g)
{
	struct run_rule *q = &g->run;
	__u64 how = g->last_row.cfa, rbp = g->last_row.rbp, rbx = g->last_row.rbx;

	/* (values clang cannot know: it would branch on them) */
	barrier_var(how);
	barrier_var(rbp);
	barrier_var(rbx);
	if (how - RT_CFA_RSP > RT_CFA_RBP - RT_CFA_RSP)
		return false;
	_Static_assert(RT_CFA_RSP == 1 && RT_CFA_RBP == 2, "the CFA's registers as masks");
	_Static_assert(RT_RBP_SAME == 0 && RT_RBP_SAVED == 1 && RT_RBP_UNDEFINED == 2,
		       "the register rules as masks");
	q->by_rsp = -(how & 1);
	q->bp_saved = -(rbp & 1 & ~(rbp >> 1));
	q->bp_kept = -(((rbp | (rbp >> 1)) & 1) ^ 1);
	q->bx_saved = -(rbx & 1 & ~(rbx >> 1));
	q->bx_kept = -(((rbx | (rbx >> 1)) & 1) ^ 1);
	q->cfa_offset = g->last_row.cfa_offset;
	/* a register not saved read from the return address's slot, which
	 * the step reads anyway, and masked out */
	q->bp_at = (g->last_row.rbp_offset & q->bp_saved) | (-8 & ~q->bp_saved);
	q->bx_at = (g->last_row.rbx_offset & q->bx_saved) | (-8 & ~q->bx_saved);
	return !((q->bp_at | q->bx_at) & 7);
}

/* A recursion's frames after the walk's last, at most to the walk's
 * depth: while a frame's pc is walk.last_pc (the frame before's, whose row
 * is last_row: a function calling itself from one place) and its step by
 * that row (rsp or rbp plus an offset) reads words in the window, its
 * return address written to s's words after the walk's last and the walk's
 * registers stepped, held in registers until the run ends (deep's 47 frames:
 * ~9 ns a frame by quick_frame). The frames counted in the walk's tallies,
 * frames and extra_words. For the walks quick_frame may take. A global
 * function, which the verifier checks once: inline, the walk's loop's frame
 * would grow by what its loop holds, and the verifier follow its frames in
 * every walk's (a static one took 760k instructions to verify). */
__noinline int quick_run(struct walk_guesses *g, struct sample_words *s)
{
	const struct run_rule *q;
	struct walk_state *ws;
	struct stack_window *win;
	__u64 ip, sp, bp, bx, cfa, at, end;
	__u32 k, n, room;

	if (!g || !s)
		return 0;
	ws = &g->walk;
	if (!ws->quick || !ws->last_pc || ws->r.exact_ip || ws->r.ip - 1 != ws->last_pc ||
	    ws->frames >= RT_MAX_STACK_DEPTH || !set_run_rule(g))
		return 0;
	q = &g->run;
	win = &g->stack;
	n = ws->first + ws->frames;
	room = RT_MAX_STACK_DEPTH - ws->frames;
	if (n > QUICK_WORDS_MASK)
		return 0;
	if (room > QUICK_WORDS_MASK + 1 - n)
		room = QUICK_WORDS_MASK + 1 - n;
	ip = ws->r.ip;
	sp = ws->r.sp;
	bp = ws->r.bp;
	bx = ws->r.bx;
	for (k = 0; k < QUICK_RUN_FRAMES && k < room; k++) {
		cfa = ((sp & q->by_rsp) | (bp & ~q->by_rsp)) + q->cfa_offset;
		/* the run's end, without a branch for each test (the verifier
		 * would follow each apart): a frame at another pc; a CFA not
		 * above sp (both below 2^56), past user space or unaligned;
		 * the return address's or a saved register's slot out of the
		 * window ((x | (len - 1 - x)) >> 63: x >= len, or x negative) */
		end = ((ip - 1) ^ ws->last_pc) | (((sp - cfa) >> 63) ^ 1) | (cfa >> 56) | (cfa & 7);
		at = cfa - 8 - win->base;
		end |= (at | (win->len - 1 - at)) >> 63;
		at = cfa + q->bp_at - win->base;
		end |= (at | (win->len - 1 - at)) >> 63;
		at = cfa + q->bx_at - win->base;
		end |= (at | (win->len - 1 - at)) >> 63;
		barrier_var(end);
		if (end)
			break;
		at = n + k;
		barrier_var(at);
		s->w[at & QUICK_WORDS_MASK] = ip;
		at = cfa - win->base;
		bp = (win->w[((at + q->bp_at) / 8) & (STACK_WINDOW_BYTES / 8 - 1)] & q->bp_saved) |
		     (bp & q->bp_kept);
		bx = (win->w[((at + q->bx_at) / 8) & (STACK_WINDOW_BYTES / 8 - 1)] & q->bx_saved) |
		     (bx & q->bx_kept);
		ip = win->w[((at - 8) / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
		sp = cfa;
	}
	if (!k)
		return 0;
	ws->r.ip = ip;
	ws->r.sp = sp;
	ws->r.bp = bp;
	ws->r.bx = bx;
	ws->frames += k;
	g->extra_words += k;
	ws->found_tally += (__u64)k << ((ws->r.found & 3) * 16);
	if (ws->r.found == FOUND_TABLE && ws->r.debug_frame)
		ws->debug_tally += k;
	ws->quick_tally += k;
	return k;
}

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
