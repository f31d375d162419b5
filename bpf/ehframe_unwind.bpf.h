/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_unwind.bpf.h: what the in-kernel unwinder (ehframe_unwind.bpf.c) offers
 * the programs that sample: the walk of a user stack into a sample's
 * callchain, one global function the verifier checks once. */
#ifndef RINGTRACE_EHFRAME_UNWIND_BPF_H
#define RINGTRACE_EHFRAME_UNWIND_BPF_H

#include "ehframe_state.bpf.h"

/* The registers a walk starts from, when the sample was taken in user mode
 * (the perf event's or the probe's, which are the task's pt_regs); else
 * the task's saved ones. A copy: a global function takes no pointer into
 * a program's context. */
struct unwind_start {
	__u64 ip, sp, bp, bx;
	__u64 r13; /* the template interpreter's bytecode pointer in a JVM */
};
_Static_assert(sizeof(struct unwind_start) == SCRATCH_WALK_START_WORDS * 8,
	       "a sample's scratch holds the start of its walk");

/* Appends "PERF_CONTEXT_USER, frames..." at word n of s, unwound from start
 * (NULL: the task's saved user registers); by frame pointers alone for a
 * process whose mappings are not known. A walk that met a file whose table
 * is not loaded yet appends nothing when s->meta.may_copy and the budget
 * allow a copy of the stack instead (s->meta.copy_stack set: the caller
 * copies it). Returns the new word count (n when nothing was appended). */
extern long append_unwound_user_stack(struct sample_words *s, __u64 n,
				      const struct unwind_start *start, __u32 tgid);

/* The start of a walk from pt_regs as words (x86-64's ABI layout). */
static __always_inline void unwind_start_of(struct unwind_start *start, const __u64 *regs)
{
	start->ip = regs[16];
	start->sp = regs[19];
	start->bp = regs[4];
	start->bx = regs[5];
	start->r13 = regs[2];
}

#endif
