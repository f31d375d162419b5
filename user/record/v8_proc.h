/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_proc.h: one Node.js process of a -g recording, and a binary looked at, as
 * v8_procs (tracking them) and v8_namer (naming their functions) share them. */
#ifndef RINGTRACE_V8_PROC_H
#define RINGTRACE_V8_PROC_H

#include <stddef.h>

#include "record/unwind_file_key.h"
#include "record/v8_procs.h"
#include "symbols/v8_elf.h"

/* A file looked at: a Node.js binary whose V8 the walk knows (ok), one of
 * another version (unknown), or neither. */
struct v8_file {
	struct file_key key;
	bool ok, unknown;
	struct v8_elf elf;
};

struct v8_proc {
	struct runtime_proc base;    /* named: address -> itself, functions tried */
	uint64_t serial;             /* v->next_serial when noted */
	const struct v8_file *file;  /* its binary (v->base.files': kept until freed) */
	struct rt_v8_process vp;     /* what the BPF side is told */
};
_Static_assert(offsetof(struct v8_proc, base) == 0, "a process freed as its struct runtime_proc");

#endif
