/* SPDX-License-Identifier: GPL-2.0-only */
/* python_proc.h: one CPython process of a -g recording, as python_procs
 * (tracking them) and python_names (naming their code) share it. */
#ifndef RINGTRACE_PYTHON_PROC_H
#define RINGTRACE_PYTHON_PROC_H

#include <stddef.h>

#include "record/python_procs.h"

struct python_proc {
	/* named: address -> struct python_name (python_names.c), code tried */
	struct runtime_proc base;
	size_t kept_bytes;        /* once exited, what it holds, in the exited's budget */
	uint64_t since;           /* the time of its interpreter's MMAP2 (or fork) */
	bool forked;              /* a CPython process's child, not by its own MMAP2 */
	uint32_t parent;          /* ...that process */
	struct perf_sample_id fork; /* ...its fork: the child's ids, the time */
	const struct python_version_offsets *o;
	struct rt_python_process pp; /* what the BPF side is told */
	uint64_t code_type;       /* PyCode_Type in the process, or 0 */
};
_Static_assert(offsetof(struct python_proc, base) == 0, "a process freed as its struct runtime_proc");

/* Names the code objects the walks wrote since the last call into their
 * processes' maps; p->base.lock held. */
void python_names_take_seen(struct python_procs *p);

#endif
