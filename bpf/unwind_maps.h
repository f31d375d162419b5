/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_maps.h: the layout of the unwind rows, the per-process mappings and
 * the unwinder's counters that the loader fills and the BPF sampler reads. */
#ifndef RINGTRACE_UNWIND_MAPS_H
#define RINGTRACE_UNWIND_MAPS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif
#include "hotspot_maps.h"
#include "python_maps.h"
#include "v8_maps.h"

/* How a row finds the CFA (as enum unwind_cfa of symbols/unwind_compile.h). */
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
#define RT_CFA_RSP_RA_REG 10 /* rsp + cfa_offset, the return address in DWARF
				register cfa_reg (__vfork's, popped into rdi): known
				as RT_CFA_REG's is */
#define RT_CFA_STACK_SWITCH 11 /* runs its callee on another stack (Go's
				  runtime.systemstack): frame pointers find its
				  caller, counted */

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
	__u8 cfa_reg; /* RT_CFA_REG's DWARF register number, and RT_ROW_DEBUG_FRAME */
};

/* In a row's cfa_reg: the row is .debug_frame's (counted apart). */
#define RT_ROW_DEBUG_FRAME 0x80

/* Where a file's table is in the unwinder's maps: rows [first_row, first_row +
 * nr_rows) of unwind_rows (nr_rows 0: no table, frame pointers), and a page
 * index narrowing the search: entry p of unwind_pages[first_page, first_page +
 * nr_pages) is the row (counted from first_row) in force at the file's
 * virtual address page_base + (p << page_shift), page_base the first row's
 * pc. nr_pages 0: no index, the rows searched whole. */
struct rt_unwind_slice {
	__u32 first_row, nr_rows;
	__u32 first_page, nr_pages;
	__u32 page_base, page_shift;
};

/* A file whose table is loaded, by the kernel's identity of it (the
 * superblock's dev_t, MKDEV(major, minor) = major << 20 | minor, and the
 * inode): how the kernel side names the file a process maps. */
struct rt_unwind_file_key {
	__u32 dev;
	__u32 pad;
	__u64 ino;
};

/* Files wanted at once, at most (--unwind-tables sampled): more between two
 * of the loader's looks push out the least recent, wanted again by the next
 * walk that meets them. */
#define RT_UNWIND_MAX_WANTED 1024

/* One executable mapping of a process: [start, end), whose address a is the
 * file's virtual address a - bias, unwound by its file's table. A mapping
 * whose table is not known where it was written (table.nr_rows 0, file.ino
 * not 0) has it looked up by file in unwind_files, its bias then
 * file_start - the file's exec_vaddr_delta (file_start: where the file's
 * offset 0 is, start - the mapping's offset). */
struct rt_unwind_mapping {
	__u64 start, end, bias;
	struct rt_unwind_slice table;
	struct rt_unwind_file_key file;
	__u64 file_start;
};

/* Most executable mappings of one process the unwinder knows; and the binary
 * searches' bounds (2^steps > entries). */
#define RT_UNWIND_MAX_MAPPINGS 256
/* Slots of the count of changes to processes' mappings (by tgid modulo
 * this, a power of two): the walks' copies of a process's are good while
 * its slot's count is the same. */
#define RT_MAPPINGS_GEN_SLOTS 4096
/* The slot counting tgid's changes: the one the writers add to (the loader
 * and the kernel side) and the walks read. */
static inline __u32 rt_mappings_gen_slot(__u32 tgid)
{
	return tgid & (RT_MAPPINGS_GEN_SLOTS - 1);
}
#define RT_UNWIND_MAPPING_STEPS 9
#define RT_UNWIND_ROW_STEPS 26 /* rows: at most 2^26 - 1 */
#define RT_UNWIND_MAX_ROWS ((1u << RT_UNWIND_ROW_STEPS) - 1)
/* A page of the index holding fewer rows than 2^RT_UNWIND_PAGE_STEPS is
 * searched by a loop the verifier unrolls; a fuller one as a whole table. */
#define RT_UNWIND_PAGE_STEPS 6
/* A file's page index has at most nr_rows / RT_UNWIND_ROWS_PER_PAGE + 1
 * entries (of 4 bytes, beside 16-byte rows). */
#define RT_UNWIND_ROWS_PER_PAGE 4

struct rt_unwind_file {
	struct rt_unwind_slice table;
	__s64 exec_vaddr_delta; /* the file's vaddr - its offset, in its executable segment */
};

/* Mappings the kernel side copied from a parent at its fork: the loader has
 * not written them, and they are void at the child's exec. */
#define RT_MAPPINGS_INHERITED 1u
/* The kernel side is inserting a mapping: a second insertion at once (a walk
 * of another thread, on another CPU) leaves its mapping to the loader. */
#define RT_MAPPINGS_WRITING 2u

/* A process's executable mappings, sorted by start. */
struct rt_process_mappings {
	__u32 nr;
	__u32 pad;
	__u64 flags; /* RT_MAPPINGS_*: 0 as the loader writes them (64 bits: the
			BPF side's atomic or) */
	__u64 stack_top; /* mm->start_stack, kept by the walks (0: not yet) */
	struct rt_unwind_mapping m[RT_UNWIND_MAX_MAPPINGS];
};

/* Per-CPU counts of the in-kernel unwinder (--call-graph ehframe), in three
 * parts that each add up. */
struct rt_unwind_counters {
	/* stacks, each ending one way: samples = outermost + return_zero +
	 * non_canonical + read_failed + bad_frame + truncated + in_exec +
	 * stacks_copied (below) */
	__u64 samples;       /* user stacks */
	__u64 no_process;    /* ...of which walked by frame pointers alone: the
				process's mappings not known, and no room to
				start them */
	__u64 outermost;     /* ended where the CFI says the stack ends */
	__u64 return_zero;   /* ended at a return address 0 */
	__u64 non_canonical; /* ended at a return address no user address can be */
	__u64 read_failed;   /* ended at a stack read that failed (not paged in) */
	__u64 bad_frame;     /* ended at a frame going down the stack */
	__u64 truncated;     /* cut at RT_MAX_STACK_DEPTH frames */
	__u64 in_exec;       /* ended at a read of the stack of the image an exec
				was replacing: gone with its address space (the
				sample's pc alone is the old image's, as perf's) */
	/* frames the walks wrote, each found one way: frames = first_frames +
	 * table_frames + signal_frames + fp_frames (the BPF side counts them
	 * by index, in this order) */
	__u64 frames;
	__u64 first_frames;  /* the sampled registers' */
	__u64 table_frames;  /* from .eh_frame rows */
	__u64 signal_frames; /* the registers a signal interrupted, from its frame */
	__u64 fp_frames;     /* by frame pointers, for one reason each: fp_frames =
				no_process_frames + no_mapping + no_table + expression +
				stack_switch */
	__u64 no_process_frames; /* the process's mappings not known (yet) */
	__u64 no_mapping;    /* no executable file mapped there (JIT, vdso) */
	__u64 no_table;      /* a file without a table (none, or no room), or no CFI there */
	__u64 expression;    /* a CFA rule the walk does not run (an expression, or a
				register known only in the sampled frame) */
	__u64 stack_switch;  /* a frame that ran its callee on another stack */
	/* executable mappings the kernel side put in a process's, before the
	 * loader reads them: at its exec, and from the VMA of a pc a walk
	 * found in no mapping known (a library mapped since): kernel_mappings;
	 * and those it left to the loader (no room, overlapping another, or
	 * another walk's insertion under way) */
	__u64 kernel_mappings;
	__u64 kernel_mappings_left;
	/* processes not known yet whose mappings a sample started (empty) */
	__u64 kernel_processes;
	/* of table_frames, those from .debug_frame rows */
	__u64 debug_frame_frames;
	/* stacks with a frame in a file whose table was not loaded yet:
	 * copied (regs and stack, unwound when read) in place of their user
	 * frames, an ending of their own; or not (over stack_copy_budget bytes
	 * a second on a CPU), then ending as their walk did */
	__u64 stacks_copied;
	__u64 copies_over_budget;
	/* stacks (of samples) with a frame in a file the loader said has no
	 * table (none to build, or refused one), walked by frame pointers
	 * there; and those with a frame in a file whose table was not loaded
	 * (not yet, or no room for it), stacks_copied of them copied, the
	 * others walked by frame pointers there */
	__u64 stacks_no_table;
	__u64 stacks_pending;
	/* of frames, those the walk's quick path took (a row kept by pc, or
	 * the frame before's, and a step within the stack already read) */
	__u64 quick_frames;
	/* CPython's frames in place of its evaluation loop's (python_maps.h) */
	struct rt_python_counters python;
	/* HotSpot's interpreted Java frames in place of its interpreter's (hotspot_maps.h) */
	struct rt_hotspot_counters hotspot;
	/* V8's JavaScript frames in place of, or after, its native ones (v8_maps.h) */
	struct rt_v8_counters v8;
};

#endif
