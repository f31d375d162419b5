/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_state.bpf.h: the in-kernel unwinder's maps (rows, page index, each process's
 * mappings, the files loaded, counters, the stack window, a walk's guesses) and
 * the state of one walk; the maps are defined in ehframe_unwind.bpf.c */
#ifndef RINGTRACE_EHFRAME_STATE_BPF_H
#define RINGTRACE_EHFRAME_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sample_buffers.bpf.h"
#include "unwind_maps.h"

/* Set by the loader: --call-graph ehframe. */
extern const volatile bool unwind_ehframe;

/* Every file's rows, one slice each (resized by --unwind-mem), written by
 * the loader through its mapping of them. */
struct unwind_rows_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_row);
};
extern struct unwind_rows_map unwind_rows SEC(".maps");

/* Every file's page index (struct rt_unwind_slice), one slice each, written
 * as the rows are. */
struct unwind_pages_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};
extern struct unwind_pages_map unwind_pages SEC(".maps");

/* Each process's executable mappings, by tgid. */
struct process_mappings_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* resized by the loader */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
};
extern struct process_mappings_map process_mappings SEC(".maps");

/* A count of the changes to the mappings of the processes whose tgid is i
 * modulo RT_MAPPINGS_GEN_SLOTS, at index i: every writer of
 * process_mappings (the loader through its mapping of this map, the kernel
 * side here) adds one after its write. A walk's copies of its process's
 * mappings (struct mappings_memo) are good while it has not changed. */
struct mappings_gen_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, RT_MAPPINGS_GEN_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct mappings_gen_map mappings_gen SEC(".maps");

/* After a write of tgid's mappings: the walks' copies of them are stale. */
static __always_inline void mappings_changed(__u32 tgid)
{
	__u32 slot = rt_mappings_gen_slot(tgid);
	__u64 *gen = bpf_map_lookup_elem(&mappings_gen, &slot);

	if (gen)
		__sync_fetch_and_add(gen, 1);
}

/* The files whose tables are loaded, by device and inode (the loader's). */
struct unwind_files_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rt_unwind_file_key);
	__type(value, struct rt_unwind_file);
};
extern struct unwind_files_map unwind_files SEC(".maps");

/* Files a walk met with no table loaded nor refused (--unwind-tables
 * sampled), each with the process whose walk met it: the loader compiles
 * those, and no other, and deletes each key it takes; the least recently
 * wanted go first when it is full. */
struct unwind_wanted_map {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, RT_UNWIND_MAX_WANTED);
	__type(key, struct rt_unwind_file_key);
	__type(value, __u32);
};
extern struct unwind_wanted_map unwind_wanted SEC(".maps");

/* The mappings a process's exec starts it with, built here (per CPU). */
struct exec_mappings_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
};
extern struct exec_mappings_map exec_mappings SEC(".maps");

/* No mappings: what a walk of a process not known yet searches (a pointer
 * the verifier knows is never NULL, where NULL makes it fail). */
struct no_process_mappings_map {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
};
extern struct no_process_mappings_map no_process_mappings SEC(".maps");

struct unwind_counters_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_counters);
};
extern struct unwind_counters_map unwind_counters SEC(".maps");

/* The sigcontext in the rt_sigframe at a signal frame's sp, and the words
 * of it a step reads: rbp, rbx, rdx, rax, rcx, rsp, rip. */
#define SIGFRAME_SIGCONTEXT 40
#define SIGCONTEXT_FIRST_READ 10
#define SIGCONTEXT_WORDS_READ 7

/* A copy of the part of the user stack a walk reads next: one read where
 * there would be one per word (a read costs ~100 ns here, of which copying
 * 1 KiB is ~15 ns warm, ~25 cold). The first read of a walk copies
 * STACK_FIRST_READ_BYTES (unwindgen's chain, 7 frames, is in its first
 * 1 KiB), a later one the window (its deep stack, 47 frames, in 3 KiB); how
 * far a read may go is refill_bytes'. A read for the word at addr starts
 * STACK_LOOKBACK_BYTES below it (within its page: the pages below a stack's
 * pointer need not be mapped): a step reads the return address at CFA - 8
 * first, then the registers its frame saved below it, which a read starting
 * at the return address would miss. */
/* Where a walk is among a CPython process's frames (python_frames.bpf.h). */
enum { PY_NOT_STARTED, PY_WALKING, PY_ENDED };
struct py_cursor {
	__u64 frame;  /* the next interpreter frame to write (PY_WALKING) */
	__u32 tgid;
	__u32 n;      /* in: the callchain word the first frame goes to */
	__u32 room;   /* in: words it may take */
	__u8 state;
	__u8 nested;  /* the walk interrupted another of its CPU's: scratch of its own */
};

/* Where a walk is in a JVM's code cache (hotspot_frames.bpf.h): what a frame
 * there is read with, and how to step from it. */
struct java_cursor {
	__u64 bcp_reg;   /* the sampled r13, the interpreter's bytecode pointer (else 0) */
	__u64 pc, sp, fp; /* in: the frame's */
	__u64 sender_sp; /* an interpreted frame's caller's sp, for that caller
			    (0: none; a compiled caller's frame is found from
			    it: an adapter may have moved sp since) */
	__u64 callee_sender_sp; /* ...the frame before's, for this one */
	struct rt_unwind_row row; /* out: a compiled frame's step, if has_row */
	__u32 tgid;
	__u32 n;         /* in: the callchain word the first frame goes to */
	__u32 room;      /* in: words it may take */
	__u8 nested;     /* the walk interrupted another of its CPU's: scratch of its own */
	__u8 leaf;       /* in: its pc is exact (the sampled frame's, or one a
			    signal interrupted), not a return address */
	__u8 first;      /* in: the walk's first frame (bcp_reg is its) */
	__u8 has_row;
	/* the frame's code blob (hotspot_blob_frame): where, of what kind */
	__u64 blob, blob_name;
	__u8 blob_kind;
	/* methods the frame was written with that the loader is to be told
	 * of, named after the frame (hotspot_name_methods: a call of its own,
	 * not under the frame's, whose stacks the verifier adds up) */
	__u32 nr_to_name;
	struct rt_hotspot_method_key to_name[RT_JAVA_MAX_INLINE];
};

#define STACK_FIRST_READ_BYTES 1024
#define STACK_WINDOW_BYTES 4096
#define STACK_LOOKBACK_BYTES 64
#define STACK_PAGE 4096
/* A stack pointer this far below mm->start_stack, at most, is on the main
 * thread's stack: the kernel keeps other mappings at least 128 MiB below. */
#define MAIN_STACK_MAX_BYTES (128ULL << 20)
struct stack_window {
	__u64 base, len; /* [base, base + len) copied to w */
	__u64 top;       /* the process's mm->start_stack */
	__u32 lookups; /* the walk's lookups of VMAs, for pcs in no mapping known */
	__u32 reads;   /* the walk's refills of w */
	__u32 first_read; /* the bytes its first refill copies (refill_bytes) */
	__u64 w[STACK_WINDOW_BYTES / 8];
	__u64 signal[SIGCONTEXT_WORDS_READ]; /* what a signal frame's step reads */
	__u64 word; /* a word read alone */
};

/* Guesses from walks before, each checked before it is used. Return
 * addresses repeat from sample to sample, and within a recursion:
 * - rows by file address: the row in force from its pc to the next row's
 *   in the table whose rows start at first_row (rows are written once, at
 *   indexes never reused in a recording: a table is named by its first row);
 *   a hit reads the guess alone, where a search reads the page index and up
 *   to RT_UNWIND_PAGE_STEPS rows (each a cache line seldom still warm when
 *   the next sample comes, here ~1 ms later);
 * - mappings by the pc's page: the index among the walk's process's
 *   mappings of the one holding it, checked against its bounds (a slot of
 *   another process's costs a search, never a wrong frame); a hit is one
 *   comparison where a search is a bpf_loop of up to RT_UNWIND_MAPPING_STEPS
 *   steps (~35 ns here, three times a sample of unwindgen's chain). */
#define ROW_GUESS_BITS 9
#define MAPPING_GUESS_BITS 10
#define FRAME_GUESSES 16 /* a power of two */
/* The mappings of one process a walk found its frames in, copied with the
 * process's count of changes (mappings_gen) read before: the next walk of
 * the process reads them here, while the count is the same, where the
 * lookup of the process's mappings costs three lines fetched one after
 * another (the hash's, its bucket's and its element's), and each mapping
 * one more. */
#define MEMO_MAPPINGS 4 /* a power of two */
#define MEMO_ANON 4     /* a power of two */
struct mappings_memo {
	__u32 tgid; /* whose (0: nobody's) */
	__u32 nr;
	/* the walk under way's, in map memory, whose values the verifier does
	 * not follow (on the walk's stack, each would have it check the
	 * frames again): it uses the memo (copies into it); its process's
	 * mappings are still to be looked up (w->pm the empty ones until) */
	__u8 in_use, pm_pending;
	__u64 gen;
	__u64 stack_top;
	struct rt_unwind_mapping m[MEMO_MAPPINGS];
	/* executable memory of no file (a JIT's code) the walks of the process
	 * found pcs in, by their VMAs, while the count is the same: a pc there
	 * is looked up no more (a VMA's lookup took ~2 us of a sample's BPF
	 * time here, for each of a Node.js process's optimized frames) */
	__u64 anon_start[MEMO_ANON], anon_end[MEMO_ANON];
	__u32 anon_next;
	/* the bytes of stack the next walk's first read copies: the window's
	 * where the last walk of the process read its stack more than once,
	 * STACK_FIRST_READ_BYTES again once one would have needed no more
	 * (one read of both costs less than two: size_first_read) */
	__u32 first_read;
};
struct row_guess {
	__u32 first_row, lo, hi; /* the row is in force at [lo, hi) of that table */
	__u32 pad;
	struct rt_unwind_row row;
};
/* The executable mapping of a file holding an address, as bpf_find_vma
 * finds its VMA (ehframe_mappings.bpf.h). */
struct mapped_file {
	struct rt_unwind_file_key key;
	__u64 start, end, pgoff;
	bool found;
	bool anon; /* the VMA is executable memory of no file (start, end): a JIT's */
};

/* frame_regs' regs_at of the sampled frame: the task's pt_regs, not looked
 * up (two helpers' calls, ~50 ns on an AMD host) until a rule reads one of
 * its registers. No kernel address is this low. */
#define REGS_AT_TASK 1

/* The frame a walk is at, and how it was found: what a step reads and
 * writes (no pointers: the argument of a global function). */
struct frame_regs {
	__u64 ip, sp, bp, bx;
	/* where every register of this frame is, when it is known: the
	 * sampled frame's in the task's pt_regs (kernel memory; REGS_AT_TASK:
	 * found when a rule needs one, rarely), a frame a signal interrupted
	 * in its sigcontext (user memory); else 0 */
	__u64 regs_at;
	bool regs_in_user;
	bool exact_ip; /* the first frame, or the one a signal interrupted */
	__u8 found, fp_reason, end_reason;
	bool debug_frame; /* found by a .debug_frame row */
};

/* What a walk keeps beside its pointers (struct unwind_walk): in map
 * memory, in its guesses, where on the BPF stack it would deepen the frames
 * of the walk's callers, which the verifier adds up to at most 512 bytes. */
struct walk_state {
	struct frame_regs r;
	__u32 tgid;
	__u32 first;  /* the word the first frame goes to */
	__u32 frames; /* frames written */
	__s32 last_mapping; /* the mapping of the frame before, tried first */
	/* the pc of the frame before when its row was found (in
	 * walk_guesses' last_row), else 0: a recursion's frames, at one return
	 * address, take that row without a lookup */
	__u64 last_pc;
	bool no_process; /* its mappings not known: frame pointers alone */
	bool table_pending; /* a frame in a file whose table the loader has not
			       loaded, nor said it has none (unwind_files): the
			       first such file in guesses' pending_file */
	/* the walk's frames counted by how each was found (FOUND_*, 16 bits
	 * each), those by frame pointers by why (FP_*, 8 bits each) and those
	 * by .debug_frame rows: added to the counters once, at the walk's end
	 * (count_frame, add_frame_tallies), where an add to them a frame cost
	 * deep's 47 frames 38-95 ns */
	__u64 found_tally, fp_tally;
	__u32 debug_tally;
	__u32 quick_tally; /* frames quick_frame and quick_run took */
	/* the process's count of changes to its mappings at the walk's start:
	 * the key, with the tgid, of the rows the walk keeps by pc
	 * (walk_guesses' pc_rows) */
	__u64 gen;
	/* its frames may be taken by quick_frame, and rows kept by pc: the
	 * process's mappings and their count known, no runtime's frames to
	 * write in its native ones */
	bool quick;
	bool table_missing; /* a frame in a file the loader said has no table
			       (none to build, or refused; in unwind_files, or
			       its mapping written so): by frame pointers */
};

/* A row's step as quick_run takes it for each frame of a recursion: its
 * rules as masks (all ones or none) and offsets, worked out once a run, read
 * from map memory at each frame (as locals, the run's loop spilled them to
 * its stack, which the verifier adds to the walk's callers'). */
struct run_rule {
	__u64 by_rsp;             /* the CFA rsp + cfa_offset, else rbp + */
	__u64 bp_saved, bp_kept;  /* rbp: at CFA + bp_at; else the same; else 0 */
	__u64 bx_saved, bx_kept;  /* rbx: likewise */
	__s64 cfa_offset, bp_at, bx_at;
};

/* The row in force at an absolute pc of process tgid while its mappings
 * are those of count gen (mappings_gen): a frame at that pc takes it
 * without looking up its mapping, its file's table and the row (~15 ns a
 * frame of unwindgen's chain). */
#define PC_ROW_BITS 7
struct pc_row {
	__u64 pc, gen;
	__u32 tgid, pad;
	struct rt_unwind_row row;
};

struct walk_guesses {
	/* (entry 0's) a walk of this CPU's is under way: one that starts
	 * meanwhile (the sampler's, in an NMI that interrupted the off-CPU
	 * program's walk) takes entry 1's guesses, where in entry 0's it could
	 * leave a guess half another's, or change the row the walk it
	 * interrupted is reading */
	__u64 walking;
	/* a CPython process's walk: where it is among the Python frames, and
	 * the words they took beyond the native frames walked (in map memory:
	 * values the verifier does not track, where on the walk's stack each
	 * would have it check the frames' loop again for every value) */
	struct py_cursor py;
	/* words written beyond one for each frame the walk's loop stepped to
	 * (Python's and Java's frames in place of a native one, V8's after
	 * one, a recursion's frames quick_run took after one): the loop's
	 * frame index plus these is where the next frame goes */
	__u32 extra_words;
	struct java_cursor java; /* a JVM's walk */
	/* the walk's process is a JVM (in_jvm): where its code is, a copy */
	__u8 in_jvm;
	struct rt_hotspot_process jvm;
	/* the walk's process runs V8 (in_v8): where its builtins are, a copy;
	 * which of v8_scratch's entries the walk takes (a nested walk's) */
	__u8 in_v8, v8_nested;
	struct rt_v8_process v8;
	struct walk_state walk; /* the walk's own */
	struct rt_unwind_row last_row; /* the row of walk.last_pc */
	__u64 code; /* the 8 bytes of code before a return address in no file */
	/* the mapping and row of each of the last walk's first frames: a stack
	 * much like the last sample's finds them here, in the lines after the
	 * fields above, where the slots hashed by address lie in four pages */
	__u8 frame_mapping[FRAME_GUESSES];
	struct row_guess frame_row[FRAME_GUESSES];
	struct mappings_memo memo;
	struct pc_row pc_rows[1u << PC_ROW_BITS]; /* by a hash of the pc */
	/* the walk's copy of the user stack: its head in the lines of the
	 * fields above, its words in the pages after them (every page and
	 * line a walk touches is a miss at each sample here: the TLB is
	 * flushed at each entry to the kernel, and the host's other work
	 * evicts the caches between samples) */
	struct stack_window stack;
	struct mapped_file vma; /* a pc's VMA, where the walk found none of its mappings */
	__u8 mapping[1u << MAPPING_GUESS_BITS]; /* an index into a process's mappings */
	struct row_guess row[1u << ROW_GUESS_BITS];
	/* the first file of the walk whose table was pending (walk's
	 * table_pending; not in walk_state, whose reset at each walk is built
	 * on the stack) */
	struct rt_unwind_file_key pending_file;
	struct run_rule run; /* last_row's step as quick_run takes it */
};
_Static_assert(RT_UNWIND_MAX_MAPPINGS <= 256, "a mapping's index is a byte");
/* A per-CPU map's value is at most the kernel's PCPU_MIN_UNIT_SIZE (32 KiB):
 * past it the map is refused (E2BIG) */
_Static_assert(sizeof(struct walk_guesses) <= 32768, "the guesses fit a per-CPU value");

struct unwind_guesses_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2); /* a walk's, and a walk's that interrupted it */
	__type(key, __u32);
	__type(value, struct walk_guesses);
};
extern struct unwind_guesses_map unwind_guesses SEC(".maps");


/* The highest user address on x86-64 (4-level paging, and 5-level's low half). */
#define USER_ADDR_MAX 0x00ffffffffffffffULL

/* DWARF's x86-64 general registers: rax 0 .. r15 15. */
#define DW_REGS 16

/* Where DWARF register r is among pt_regs' words (r15 r14 r13 r12 bp bx r11
 * r10 r9 r8 ax cx dx si di), and among a signal frame's sigcontext words (r8
 * .. r15 di si bp bx dx ax cx sp ip): byte r & 7 of the first constant for r
 * < 8, of the second for the others (constants, where a table would be a
 * data section of its own). */
#define PT_REGS_WORDS_OF_DWARF 0x13040E0D050B0C0AULL, 0x0001020306070809ULL
#define SIGCONTEXT_WORDS_OF_DWARF 0x0F0A08090B0E0C0DULL, 0x0706050403020100ULL
static __always_inline __u32 word_of_dwarf(__u64 low, __u64 high, __u8 reg)
{
	return ((reg < 8 ? low : high) >> ((reg & 7) * 8)) & 0xff;
}

/* How the frame the walk writes next was found, and why by frame pointers:
 * in the order of their counters. */
enum { FOUND_FIRST, FOUND_TABLE, FOUND_SIGNAL, FOUND_FP };
enum { FP_NO_PROCESS, FP_NO_MAPPING, FP_NO_TABLE, FP_EXPRESSION, FP_STACK_SWITCH };
#define COUNTER_AT(first, i) (__builtin_offsetof(struct rt_unwind_counters, first) / 8 + (i))
_Static_assert(COUNTER_AT(first_frames, FOUND_FP) ==
		       __builtin_offsetof(struct rt_unwind_counters, fp_frames) / 8,
	       "frames counted by how they were found, in that order");
_Static_assert(COUNTER_AT(no_process_frames, FP_STACK_SWITCH) ==
		       __builtin_offsetof(struct rt_unwind_counters, stack_switch) / 8,
	       "frames by frame pointers counted by why, in that order");
/* How a walk ended. */
enum { END_NONE, END_OUTERMOST, END_RETURN_ZERO, END_NON_CANONICAL, END_READ_FAILED, END_IN_EXEC,
       END_BAD_FRAME, END_TRUNCATED };

/* The pointers of one walk, on the BPF stack of the sampling program (what
 * it keeps beside them: guesses->walk). */
struct unwind_walk {
	struct sample_words *s;
	/* the process's mappings; with a memo good at the walk's start, the
	 * empty ones until a frame is found in none of the memo's */
	struct rt_process_mappings *pm;
	struct stack_window *stack;
	struct walk_guesses *guesses;
	struct rt_unwind_counters *c; /* where the frames are counted */
	/* a CPython process's (else NULL): its evaluation loop's native frames
	 * are written as the Python frames they run (where: guesses->py) */
	const struct rt_python_process *py;
};

/* Counts the frame written by how it was found, in the walk's tallies. */
static __always_inline void count_frame(const struct unwind_walk *w)
{
	struct walk_state *ws = &w->guesses->walk;

	ws->found_tally += 1ULL << ((ws->r.found & 3) * 16);
	if (ws->r.found == FOUND_TABLE && ws->r.debug_frame)
		ws->debug_tally++;
	if (ws->r.found == FOUND_FP)
		ws->fp_tally += 1ULL << ((ws->r.fp_reason & 7) * 8);
}

/* The walk's tallies added to the counters (by index: a switch would make
 * the verifier walk each case). */
static __always_inline void add_frame_tallies(const struct walk_state *ws,
					      struct rt_unwind_counters *c)
{
	__u64 *words = (__u64 *)c, t = ws->found_tally;

	for (int k = FOUND_FIRST; k <= FOUND_FP; k++) {
		words[COUNTER_AT(frames, 0)] += (t >> (k * 16)) & 0xffff;
		words[COUNTER_AT(first_frames, k)] += (t >> (k * 16)) & 0xffff;
	}
	c->debug_frame_frames += ws->debug_tally;
	c->quick_frames += ws->quick_tally;
	t = ws->fp_tally;
	if (!t)
		return;
	for (int k = FP_NO_PROCESS; k <= FP_STACK_SWITCH; k++)
		words[COUNTER_AT(no_process_frames, k)] += (t >> (k * 8)) & 0xff;
}

#endif
