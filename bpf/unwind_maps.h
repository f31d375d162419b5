/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_maps.h: the layout of the unwind rows, the per-process mappings and
 * the unwinder's counters that the loader fills and the BPF sampler reads. */
#ifndef RINGTRACE_UNWIND_MAPS_H
#define RINGTRACE_UNWIND_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* How a row finds the CFA (as enum unwind_cfa of symbols/unwind_table.h). */
#define RT_CFA_NONE 0       /* no CFI: frame pointers */
#define RT_CFA_RSP 1        /* rsp + cfa_offset */
#define RT_CFA_RBP 2        /* rbp + cfa_offset */
#define RT_CFA_PLT10 3      /* rsp + 8, + 8 when (rip & 15) >= 10 */
#define RT_CFA_PLT11 4      /* rsp + 8, + 8 when (rip & 15) >= 11 */
#define RT_CFA_EXPRESSION 5 /* not supported: frame pointers, counted */
#define RT_CFA_SIGNAL 6     /* a signal trampoline: registers in the ucontext at rsp */
#define RT_CFA_OUTERMOST 7  /* the stack ends here */
#define RT_CFA_RBX 8        /* rbx + cfa_offset (ld.so's _dl_runtime_resolve_*) */
#define RT_CFA_REG 9        /* DWARF register cfa_reg + cfa_offset: known only in a
			       frame whose every register is known (the first one,
			       or one a signal interrupted); else frame pointers */

/* Where the caller's rbp (and rbx) is. */
#define RT_RBP_SAME 0
#define RT_RBP_SAVED 1 /* at CFA + rbp_offset (rbx_offset) */
#define RT_RBP_UNDEFINED 2

/* One row of a file's table, covering [pc, the next row's pc) of the file's
 * virtual addresses. Every file's rows are a slice of one array. */
struct rt_unwind_row {
	__u32 pc;
	__s32 cfa_offset;
	__s16 rbp_offset;
	__s16 rbx_offset;
	__u8 cfa;     /* RT_CFA_* */
	__u8 rbp;     /* RT_RBP_* */
	__u8 rbx;     /* RT_RBP_*, for rbx */
	__u8 cfa_reg; /* RT_CFA_REG's DWARF register number */
};

/* One executable mapping of a process: [start, end), whose address a is the
 * file's virtual address a - bias, unwound by rows [first_row, first_row +
 * nr_rows) (nr_rows 0: no table, frame pointers). */
struct rt_unwind_mapping {
	__u64 start, end, bias;
	__u32 first_row, nr_rows;
};

/* Most executable mappings of one process the unwinder knows; and the binary
 * searches' bounds (2^steps > entries). */
#define RT_UNWIND_MAX_MAPPINGS 256
#define RT_UNWIND_MAPPING_STEPS 9
#define RT_UNWIND_ROW_STEPS 26 /* rows: at most 2^26 - 1 */
#define RT_UNWIND_MAX_ROWS ((1u << RT_UNWIND_ROW_STEPS) - 1)

/* A process's executable mappings, sorted by start. */
struct rt_process_mappings {
	__u32 nr;
	__u32 pad;
	struct rt_unwind_mapping m[RT_UNWIND_MAX_MAPPINGS];
};

/* Per-CPU counts of the in-kernel unwinder (--call-graph ehframe). */
struct rt_unwind_counters {
	__u64 samples;       /* user stacks unwound */
	__u64 frames;        /* user frames written */
	__u64 table_frames;  /* ...found from .eh_frame rows */
	__u64 fp_frames;     /* ...found by frame pointers, for one of these reasons: */
	__u64 no_process;    /* the process's mappings were not known (yet) */
	__u64 no_mapping;    /* no executable file mapped there (JIT, vdso) */
	__u64 no_table;      /* a file without a table (none, or no room), or no CFI there */
	__u64 expression;    /* a CFA rule the unwinder does not run */
	__u64 signal_frames; /* signal trampolines unwound */
	__u64 outermost;     /* stacks that ended where the CFI says they end */
	__u64 truncated;     /* stacks cut at RT_MAX_STACK_DEPTH frames */
	__u64 read_failed;   /* a stack read failed (not paged in) */
	__u64 bad_frame;     /* a frame going down the stack, or to address 0 */
};

#endif
