/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_unwind.bpf.h: unwinds a user stack in the kernel from the rows the
 * loader compiled from .eh_frame, frame pointers where there are none. */
#ifndef RINGTRACE_EHFRAME_UNWIND_BPF_H
#define RINGTRACE_EHFRAME_UNWIND_BPF_H

#include "unwind_maps.h"

/* Set by the loader: --call-graph ehframe. */
const volatile bool unwind_ehframe = false;

/* Every file's rows, one slice each (resized by --unwind-mem), written by
 * the loader through its mapping of them. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_row);
} unwind_rows SEC(".maps");

/* Every file's page index (struct rt_unwind_slice), one slice each, written
 * as the rows are. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} unwind_pages SEC(".maps");

/* Each process's executable mappings, by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* resized by the loader */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
} process_mappings SEC(".maps");

/* The files whose tables are loaded, by device and inode (the loader's). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct rt_unwind_file_key);
	__type(value, struct rt_unwind_file);
} unwind_files SEC(".maps");

/* The mappings a process's exec starts it with, built here (per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
} exec_mappings SEC(".maps");

/* No mappings: what a walk of a process not known yet searches (a pointer
 * the verifier knows is never NULL, where NULL makes it fail). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_process_mappings);
} no_process_mappings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_unwind_counters);
} unwind_counters SEC(".maps");

/* The sigcontext in the rt_sigframe at a signal frame's sp, and the words
 * of it a step reads: rbp, rbx, rdx, rax, rcx, rsp, rip. */
#define SIGFRAME_SIGCONTEXT 40
#define SIGCONTEXT_FIRST_READ 10
#define SIGCONTEXT_WORDS_READ 7

/* A copy of the part of the user stack a walk reads next: one read of up to
 * STACK_WINDOW_BYTES instead of one per word (a read costs ~150 ns here, of
 * which copying 1 KiB is a small part: a 7-frame walk of unwindgen's chain
 * reads once, where 512 bytes read twice). Never across a page end, so that
 * an unmapped page past the stack's top fails no read below it. A read for
 * the word at addr starts STACK_LOOKBACK_BYTES below it (within its page):
 * a step reads the return address at CFA - 8 first, then the registers its
 * frame saved below it, which a read starting at the return address would
 * miss (read again: twice the reads). */
#define STACK_WINDOW_BYTES 1024
#define STACK_LOOKBACK_BYTES 64
#define STACK_PAGE 4096
struct stack_window {
	__u64 base, len; /* [base, base + len) copied to w */
	__u64 w[STACK_WINDOW_BYTES / 8];
	__u64 signal[SIGCONTEXT_WORDS_READ]; /* what a signal frame's step reads */
	__u64 word; /* a word read alone */
	__u32 lookups; /* the walk's lookups of VMAs, for pcs in no mapping known */
};

/* Rows found before, by file address: a guess, checked before it is used
 * (the row in force is the one whose pc <= vaddr < the next row's pc), so a
 * slot of another file's, or of a table rewritten since, costs a search and
 * no wrong frame. Return addresses repeat from sample to sample, and within
 * a recursion: a hit is 2 row reads where a search is up to 9. */
#define ROW_CACHE_BITS 10
struct row_cache {
	__u32 row[1u << ROW_CACHE_BITS]; /* an index into unwind_rows */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct row_cache);
} unwind_row_cache SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_window);
} unwind_stack_window SEC(".maps");

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
enum { FP_NO_PROCESS, FP_NO_MAPPING, FP_NO_TABLE, FP_EXPRESSION };
#define COUNTER_AT(first, i) (__builtin_offsetof(struct rt_unwind_counters, first) / 8 + (i))
_Static_assert(COUNTER_AT(first_frames, FOUND_FP) ==
		       __builtin_offsetof(struct rt_unwind_counters, fp_frames) / 8,
	       "frames counted by how they were found, in that order");
_Static_assert(COUNTER_AT(no_process_frames, FP_EXPRESSION) ==
		       __builtin_offsetof(struct rt_unwind_counters, expression) / 8,
	       "frames by frame pointers counted by why, in that order");
/* How a walk ended. */
enum { END_NONE, END_OUTERMOST, END_RETURN_ZERO, END_NON_CANONICAL, END_READ_FAILED,
       END_BAD_FRAME, END_TRUNCATED };

/* The frame a walk is at, and how it was found: what a step reads and
 * writes (no pointers: the argument of a global function). */
struct frame_regs {
	__u64 ip, sp, bp, bx;
	/* where every register of this frame is, when it is known: the
	 * sampled frame's in the task's pt_regs (kernel memory), a frame a
	 * signal interrupted in its sigcontext (user memory); else 0 */
	__u64 regs_at;
	bool regs_in_user;
	bool exact_ip; /* the first frame, or the one a signal interrupted */
	__u8 found, fp_reason, end_reason;
};

/* The state of one walk, on the BPF stack of the sampling program. */
struct unwind_walk {
	struct sample_words *s;
	struct rt_process_mappings *pm;
	struct stack_window *stack;
	struct row_cache *rows;
	struct frame_regs r;
	__u32 first;  /* the word the first frame goes to */
	__u32 frames; /* frames written */
	__s32 last_mapping; /* the mapping of the frame before, tried first */
	bool no_process; /* its mappings not known: frame pointers alone */
	struct rt_unwind_counters *c; /* where the frames are counted */
};

/* A binary search among a process's mappings for the one holding pc. */
struct mapping_search {
	const struct rt_process_mappings *pm;
	__u64 pc;
	__u32 lo, hi;
	__s32 found;
};

/* One step of it, as bpf_loop's body (see row_search_step). */
static long mapping_search_step(__u32 i, void *arg)
{
	struct mapping_search *r = arg;
	const struct rt_unwind_mapping *m;
	__u32 mid;

	(void)i;
	if (r->lo >= r->hi)
		return 1;
	mid = (r->lo + r->hi) / 2;
	barrier_var(mid); /* a bound the verifier sees, kept by clang */
	if (mid >= RT_UNWIND_MAX_MAPPINGS)
		return 1;
	m = &r->pm->m[mid];
	if (r->pc < m->start) {
		r->hi = mid;
	} else if (r->pc >= m->end) {
		r->lo = mid + 1;
	} else {
		r->found = (__s32)mid;
		return 1;
	}
	return 0;
}

/* The mapping of w's process covering pc, or NULL: the last frame's first
 * (a stack's frames are mostly in one file), else a binary search. */
static __always_inline const struct rt_unwind_mapping *find_mapping(struct unwind_walk *w,
								  __u64 pc)
{
	const struct rt_process_mappings *pm = w->pm;
	struct mapping_search r = { pm, pc, 0, pm->nr, -1 };
	__s32 found = w->last_mapping;

	if (found >= 0 && found < RT_UNWIND_MAX_MAPPINGS && pc >= pm->m[found].start &&
	    pc < pm->m[found].end)
		return &pm->m[found];
	bpf_loop(RT_UNWIND_MAPPING_STEPS, mapping_search_step, &r, 0);
	found = r.found;
	if (found < 0 || found >= RT_UNWIND_MAX_MAPPINGS)
		return NULL;
	w->last_mapping = found;
	return &pm->m[found];
}

/* A binary search among rows: rows[lo].pc <= vaddr < rows[hi].pc. */
struct row_search {
	__u32 lo, hi, vaddr;
};

/* One step of it, as bpf_loop's body: the verifier checks one step, where
 * an unrolled search of a whole table would make it walk every path. */
static long row_search_step(__u32 i, void *arg)
{
	struct row_search *r = arg;
	const struct rt_unwind_row *row;
	__u32 mid;

	(void)i;
	if (r->hi - r->lo <= 1)
		return 1;
	mid = r->lo + (r->hi - r->lo) / 2;
	row = bpf_map_lookup_elem(&unwind_rows, &mid);
	if (!row)
		return 1;
	if (row->pc <= r->vaddr)
		r->lo = mid;
	else
		r->hi = mid;
	return 0;
}

/* The index of the last row among [lo, hi] whose pc <= vaddr, rows[lo].pc
 * <= vaddr: by a loop the verifier unrolls when they are few (a page's),
 * else bpf_loop's (a call per step that costs more than the step). */
static __always_inline __u32 search_rows(__u32 lo, __u32 hi, __u32 vaddr)
{
	const struct rt_unwind_row *row;
	struct row_search r;
	__u32 mid;

	if (hi - lo < (1u << RT_UNWIND_PAGE_STEPS)) {
		for (int k = 0; k < RT_UNWIND_PAGE_STEPS && lo < hi; k++) {
			mid = lo + (hi - lo + 1) / 2;
			row = bpf_map_lookup_elem(&unwind_rows, &mid);
			if (!row)
				return lo;
			if (row->pc <= vaddr)
				lo = mid;
			else
				hi = mid - 1;
		}
		return lo;
	}
	r.lo = lo;
	r.hi = hi + 1;
	r.vaddr = vaddr;
	bpf_loop(RT_UNWIND_ROW_STEPS, row_search_step, &r, 0);
	return r.lo;
}

/* The row cache's slot for vaddr in the table whose rows start at first. */
static __always_inline __u32 row_cache_slot(__u32 first, __u32 vaddr)
{
	return ((vaddr ^ first * 0x9E3779B1u) * 0x85EBCA6Bu) >> (32 - ROW_CACHE_BITS);
}

/* The row at index guess if it is the one in force at vaddr among rows
 * [first, last] (see struct row_cache), else NULL. */
static __always_inline const struct rt_unwind_row *
cached_row(__u32 guess, __u32 first, __u32 last, __u32 vaddr)
{
	const struct rt_unwind_row *row, *next;

	if (guess < first || guess > last)
		return NULL;
	row = bpf_map_lookup_elem(&unwind_rows, &guess);
	if (!row || row->pc > vaddr)
		return NULL;
	if (guess == last)
		return row;
	guess++;
	next = bpf_map_lookup_elem(&unwind_rows, &guess);
	return next && next->pc > vaddr ? row : NULL;
}

/* The row in force at the file's virtual address vaddr, or NULL: the one
 * the cache names, else found (the page index naming the rows to search
 * among) and put in the cache. */
static __always_inline const struct rt_unwind_row *
find_row(struct row_cache *cache, const struct rt_unwind_slice *t, __u32 vaddr)
{
	__u32 first = t->first_row, last = t->first_row + t->nr_rows - 1, page, at;
	__u32 slot = row_cache_slot(first, vaddr) & ((1u << ROW_CACHE_BITS) - 1);
	const struct rt_unwind_row *row = cached_row(cache->row[slot], first, last, vaddr);
	const __u32 *entry;
	__u32 lo, hi, found;

	if (row)
		return row;
	row = bpf_map_lookup_elem(&unwind_rows, &first);
	if (!row || vaddr < row->pc)
		return NULL;
	if (!t->nr_pages) {
		found = search_rows(first, last, vaddr);
		goto found;
	}
	page = (vaddr - t->page_base) >> (t->page_shift & 31);
	if (page >= t->nr_pages)
		page = t->nr_pages - 1;
	at = t->first_page + page;
	entry = bpf_map_lookup_elem(&unwind_pages, &at);
	if (!entry)
		return NULL;
	lo = first + *entry;
	hi = last;
	if (page + 1 < t->nr_pages) {
		at++;
		entry = bpf_map_lookup_elem(&unwind_pages, &at);
		if (!entry)
			return NULL;
		hi = first + *entry;
	}
	if (lo > hi || hi > last)
		return NULL; /* an index not of these rows: cannot be */
	found = search_rows(lo, hi, vaddr);
found:
	cache->row[slot] = found;
	return bpf_map_lookup_elem(&unwind_rows, &found);
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

/* The stack word at addr, from the window, refilled from addr when addr is
 * not in it. */
static __always_inline bool stack_word(struct stack_window *win, __u64 addr, __u64 *out)
{
	__u64 off = addr - win->base, len, from;

	if (addr & 7)
		return read_word(win, addr, true, out);
	if (addr >= win->base && off < win->len) {
		*out = win->w[(off / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
		return true;
	}
	from = addr - STACK_LOOKBACK_BYTES;
	if (addr < STACK_LOOKBACK_BYTES || from < (addr & ~(__u64)(STACK_PAGE - 1)))
		from = addr & ~(__u64)(STACK_PAGE - 1);
	len = STACK_PAGE - (from & (STACK_PAGE - 1));
	if (len > STACK_WINDOW_BYTES)
		len = STACK_WINDOW_BYTES;
	barrier_var(len);
	if (len < 8 || len > STACK_WINDOW_BYTES ||
	    bpf_probe_read_user(win->w, len, (const void *)from)) {
		win->len = 0;
		return false;
	}
	win->base = from;
	win->len = len;
	*out = win->w[((addr - from) / 8) & (STACK_WINDOW_BYTES / 8 - 1)];
	return true;
}

/* The next frame found by frame pointers, for why: rbp points at the saved
 * rbp, the return address above it. */
static __always_inline int step_by_frame_pointer(struct frame_regs *r, struct stack_window *win,
						 __u8 why)
{
	__u64 bp, ip;

	if (!r->bp || r->bp < r->sp || r->bp > USER_ADDR_MAX) {
		r->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (!stack_word(win, r->bp, &bp) || !stack_word(win, r->bp + 8, &ip)) {
		r->end_reason = END_READ_FAILED;
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
		r->end_reason = END_READ_FAILED;
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
		if (!frame_register(r, win, row->cfa_reg, &cfa))
			return step_by_frame_pointer(r, win, FP_EXPRESSION);
		cfa += row->cfa_offset;
		break;
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
	default:
		return step_by_frame_pointer(r, win, FP_NO_TABLE);
	}
	if (cfa <= r->sp || cfa > USER_ADDR_MAX) {
		r->end_reason = END_BAD_FRAME;
		return 1;
	}
	if (!stack_word(win, cfa - 8, &ra) ||
	    !caller_register(win, row->rbp, row->rbp_offset, cfa, &bp) ||
	    !caller_register(win, row->rbx, row->rbx_offset, cfa, &bx)) {
		r->end_reason = END_READ_FAILED;
		return 1;
	}
	r->sp = cfa;
	r->bp = bp;
	r->bx = bx;
	r->ip = ra;
	r->exact_ip = false;
	r->regs_at = 0;
	r->found = FOUND_TABLE;
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

#define VM_EXEC_FLAG 0x00000004UL
#define PAGE_SHIFT_X86 12
/* An image just exec'd has its program's and its loader's code mapped: a
 * few mappings, a bound that keeps the verifier's walk of the loop short
 * (at RT_UNWIND_MAX_MAPPINGS it takes over a second). */
#define EXEC_MAPPINGS_MAX 8

/* Whether the kernel side keeps the current process's mappings: a process
 * of the recording's scope (its command before its exec too), whatever CPU
 * it runs on. */
static __always_inline bool mappings_in_scope(void)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, tid = (__u32)pid_tgid;

	if ((filter_flags & RT_FILTER_TGID) && !bpf_map_lookup_elem(&target_tgids, &tgid))
		return false;
	if ((filter_flags & RT_FILTER_TID) && !bpf_map_lookup_elem(&target_tids, &tid))
		return false;
	if (filter_flags & RT_FILTER_CGROUP) {
		if (cgroup_exact)
			return bpf_get_current_cgroup_id() == target_cgroup_id;
		return bpf_current_task_under_cgroup(&target_cgroup, 0) == 1;
	}
	return true;
}

/* The kernel's identity of a file: its superblock's device and its inode. */
static __always_inline void file_key_of(struct rt_unwind_file_key *key, struct file *file)
{
	key->dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	key->pad = 0;
	key->ino = BPF_CORE_READ(file, f_inode, i_ino);
}

/* Mapping m of a file at [start, end) from page pgoff of it, with the file's
 * table if it is loaded (else looked up by the walk when it is). */
static __always_inline void set_kernel_mapping(struct rt_unwind_mapping *m,
					       const struct rt_unwind_file_key *key, __u64 start,
					       __u64 end, __u64 pgoff)
{
	const struct rt_unwind_file *f;

	m->start = start;
	m->end = end;
	m->file = *key;
	m->file_start = start - (pgoff << PAGE_SHIFT_X86);
	f = bpf_map_lookup_elem(&unwind_files, key);
	if (f) {
		m->table = f->table;
		m->bias = m->file_start - f->exec_vaddr_delta;
	} else {
		__builtin_memset(&m->table, 0, sizeof(m->table));
		m->bias = 0;
	}
}

/* Where a mapping from start goes among pm's: the first at or above it. */
struct mapping_place {
	const struct rt_process_mappings *pm;
	__u64 start, end;
	__u32 at;
	bool overlaps;
};

static long mapping_place_step(__u32 i, void *arg)
{
	struct mapping_place *p = arg;
	const struct rt_unwind_mapping *m;

	if (i >= p->pm->nr)
		return 1;
	barrier_var(i); /* bounded itself, as the verifier sees it */
	if (i >= RT_UNWIND_MAX_MAPPINGS)
		return 1;
	m = &p->pm->m[i];
	if (m->start < p->end && p->start < m->end) {
		p->overlaps = true;
		return 1;
	}
	if (m->start >= p->end)
		return 1;
	p->at = i + 1;
	return 0;
}

/* Moves the mappings [at, nr) one up, the last first. */
struct mapping_shift {
	struct rt_process_mappings *pm;
	__u32 at, nr;
};

static long mapping_shift_step(__u32 i, void *arg)
{
	struct mapping_shift *s = arg;
	__u32 from = s->nr - 1 - i;
	struct rt_unwind_mapping *m;

	if (from < s->at)
		return 1;
	barrier_var(from); /* bounded itself, as the verifier sees it */
	if (from >= RT_UNWIND_MAX_MAPPINGS - 1)
		return 1;
	m = &s->pm->m[from];
	m[1] = m[0];
	return 0;
}

/* The executable mapping of a file holding an address, as bpf_find_vma
 * finds its VMA. */
struct mapped_file {
	struct rt_unwind_file_key key;
	__u64 start, end, pgoff;
	bool found;
};

static long mapped_file_of(struct task_struct *task, struct vm_area_struct *vma, void *arg)
{
	struct mapped_file *mf = arg;
	struct file *file = vma->vm_file;

	(void)task;
	if (!(vma->vm_flags & VM_EXEC_FLAG) || !file)
		return 0;
	file_key_of(&mf->key, file);
	mf->start = vma->vm_start;
	mf->end = vma->vm_end;
	mf->pgoff = vma->vm_pgoff;
	mf->found = true;
	return 0;
}

/* Puts the mapping mf into pm in its place (sorted by start), unless it
 * overlaps one there, pm is full, or another insertion is under way (another
 * thread's): its index, else -1, counted either way. */
static __always_inline __s32 insert_kernel_mapping(struct rt_process_mappings *pm,
						   const struct mapped_file *mf,
						   struct rt_unwind_counters *c)
{
	struct mapping_place place = { .pm = pm, .start = mf->start, .end = mf->end };
	struct mapping_shift shift;
	__s32 at = -1;
	__u32 nr, in;

	if (__sync_fetch_and_or(&pm->flags, RT_MAPPINGS_WRITING) & RT_MAPPINGS_WRITING) {
		c->kernel_mappings_left++;
		return -1;
	}
	bpf_loop(RT_UNWIND_MAX_MAPPINGS, mapping_place_step, &place, 0);
	nr = pm->nr;
	in = place.at;
	if (place.overlaps || nr >= RT_UNWIND_MAX_MAPPINGS || in > nr ||
	    in >= RT_UNWIND_MAX_MAPPINGS) {
		c->kernel_mappings_left++;
	} else {
		/* a bound the verifier sees on the register that indexes (the
		 * comparisons above may be of another copy of it) */
		barrier_var(in);
		in &= RT_UNWIND_MAX_MAPPINGS - 1;
		shift.pm = pm;
		shift.at = in;
		shift.nr = nr;
		bpf_loop(RT_UNWIND_MAX_MAPPINGS, mapping_shift_step, &shift, 0);
		set_kernel_mapping(&pm->m[in], &mf->key, mf->start, mf->end, mf->pgoff);
		pm->nr = nr + 1;
		c->kernel_mappings++;
		at = (__s32)in;
	}
	__sync_fetch_and_and(&pm->flags, ~(__u64)RT_MAPPINGS_WRITING);
	return at;
}

/* A walk finds a pc in no mapping its process's map has this many times at
 * most: each time, the VMA holding it (a library mapped since the map was
 * written, before the loader has read its MMAP2) is put in. */
#define WALK_MAPPING_LOOKUPS 4

/* The index among pm's of the mapping holding pc as its VMA says (an
 * executable mapping of a file), put in; -1 if there is none. A function of
 * its own, which the verifier checks once, not at every state of a walk. */
__noinline int vma_mapping(struct rt_process_mappings *pm, __u64 pc, struct rt_unwind_counters *c)
{
	struct mapped_file mf = { 0 };

	if (!pm || !c)
		return -1;
	if (bpf_find_vma(bpf_get_current_task_btf(), pc, mapped_file_of, &mf, 0) || !mf.found)
		return -1;
	return insert_kernel_mapping(pm, &mf, c);
}

/* The mapping of w's process holding pc, by its VMA (see vma_mapping); NULL
 * if there is none, or the walk has looked up WALK_MAPPING_LOOKUPS already
 * (counted in map memory, which the verifier does not track value by value). */
static __always_inline const struct rt_unwind_mapping *look_up_vma(struct unwind_walk *w,
								  __u64 pc)
{
	__u32 in;
	int at;

	if (w->stack->lookups >= WALK_MAPPING_LOOKUPS)
		return NULL;
	w->stack->lookups++;
	at = vma_mapping(w->pm, pc, w->c);
	if (at < 0 || at >= RT_UNWIND_MAX_MAPPINGS)
		return NULL;
	in = (__u32)at;
	barrier_var(in); /* a bound on the register that indexes */
	in &= RT_UNWIND_MAX_MAPPINGS - 1;
	w->last_mapping = (__s32)in;
	return &w->pm->m[in];
}

/* Counts the frame written by how it was found (by index: a switch would
 * make the verifier walk each case). */
static __always_inline void count_frame(const struct unwind_walk *w)
{
	__u64 *c = (__u64 *)w->c;

	c[COUNTER_AT(frames, 0)]++;
	c[COUNTER_AT(first_frames, w->r.found & 3)]++;
	if (w->r.found == FOUND_FP)
		c[COUNTER_AT(no_process_frames, w->r.fp_reason & 3)]++;
}

/* bpf_loop's body: writes the frame at w->ip, then steps to its caller.
 * Returns 1 to stop. */
static long unwind_one_frame(__u32 i, void *arg)
{
	struct unwind_walk *w = arg;
	const struct rt_unwind_mapping *m;
	const struct rt_unwind_row *row = NULL;
	struct rt_unwind_slice table;
	__u32 n = w->first + i;
	__u8 why = FP_NO_PROCESS;
	__u64 pc, bias;

	/* bounds come from i, which the verifier does not know: counters of
	 * the walk compared here would make it check every iteration apart */
	if (!w->r.ip) {
		w->r.end_reason = i ? END_RETURN_ZERO : END_BAD_FRAME;
		return 1;
	}
	if (w->r.ip > USER_ADDR_MAX) {
		w->r.end_reason = i ? END_NON_CANONICAL : END_BAD_FRAME;
		return 1;
	}
	if (i >= RT_MAX_STACK_DEPTH || n >= SCRATCH_WORDS) {
		w->r.end_reason = END_TRUNCATED;
		return 1;
	}
	w->s->w[n] = w->r.ip;
	w->frames = i + 1;
	count_frame(w);
	if (w->no_process)
		goto step;
	/* a return address is after its call: look up the call */
	pc = w->r.exact_ip ? w->r.ip : w->r.ip - 1;
	why = FP_NO_MAPPING;
	m = find_mapping(w, pc);
	if (!m)
		m = look_up_vma(w, pc);
	if (!m)
		goto step;
	table = m->table;
	bias = m->bias;
	/* mapped before its table was known where the mapping was written:
	 * the file's table, if it is loaded now */
	if (!table.nr_rows && m->file.ino) {
		const struct rt_unwind_file *f = bpf_map_lookup_elem(&unwind_files, &m->file);

		if (f) {
			table = f->table;
			bias = m->file_start - f->exec_vaddr_delta;
		}
	}
	why = FP_NO_TABLE;
	if (table.nr_rows)
		row = find_row(w->rows, &table, (__u32)(pc - bias));
step:
	return unwind_step(&w->r, w->stack, row, why) ? 1 : 0;
}

/* Appends "PERF_CONTEXT_USER, frames..." at word n, unwound from the user
 * registers: the perf event's when sampled in user mode (user_regs, x86-64
 * pt_regs words), else the task's saved ones; by frame pointers alone for a
 * process whose mappings are not known. Returns the new word count. */
static __always_inline __u32 append_unwound_user_stack(void *ctx, struct sample_words *s,
							__u32 n, const __u64 *user_regs,
							__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct unwind_walk w = { .s = s, .r.exact_ip = true, .last_mapping = -1 };
	struct rt_unwind_counters *c;
	__u32 zero = 0;

	__u32 frames, end;

	/* room for the marker and every frame in the callchain's words */
	if (n > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS - 1 - RT_MAX_STACK_DEPTH ||
	    (BPF_CORE_READ(task, flags) & PF_KTHREAD))
		return n;
	c = bpf_map_lookup_elem(&unwind_counters, &zero);
	if (!c)
		return n;
	c->samples++;
	/* a process not known yet (forked or started before the side-band
	 * told the loader of it) starts with no mappings: its walks put in
	 * those of the pcs they meet, from the VMAs; with no room for it, by
	 * frame pointers, as the kernel walks them */
	w.pm = bpf_map_lookup_elem(&process_mappings, &tgid);
	if (!w.pm) {
		const struct rt_process_mappings *none =
			bpf_map_lookup_elem(&no_process_mappings, &zero);

		if (!none)
			return n;
		if (!bpf_map_update_elem(&process_mappings, &tgid, none, BPF_NOEXIST))
			c->kernel_processes++;
		w.pm = bpf_map_lookup_elem(&process_mappings, &tgid);
	}
	if (!w.pm) {
		c->no_process++;
		w.no_process = true;
		w.pm = bpf_map_lookup_elem(&no_process_mappings, &zero);
		if (!w.pm)
			return n;
	}
	w.stack = bpf_map_lookup_elem(&unwind_stack_window, &zero);
	w.rows = bpf_map_lookup_elem(&unwind_row_cache, &zero);
	if (!w.stack || !w.rows)
		return n;
	w.stack->len = 0;
	w.stack->lookups = 0;
	/* interrupted in user mode, the perf event's regs are the task's
	 * pt_regs: where the sampled frame's other registers are read */
	if (user_regs) {
		w.r.ip = user_regs[16];
		w.r.sp = user_regs[19];
		w.r.bp = user_regs[4];
		w.r.bx = user_regs[5];
	} else {
		w.r.ip = BPF_CORE_READ(regs, ip);
		w.r.sp = BPF_CORE_READ(regs, sp);
		w.r.bp = BPF_CORE_READ(regs, bp);
		w.r.bx = BPF_CORE_READ(regs, bx);
	}
	w.r.regs_at = (__u64)regs;
	s->w[n] = PERF_CONTEXT_USER;
	w.first = n + 1;
	w.c = c;
	bpf_loop(RT_MAX_STACK_DEPTH + 1, unwind_one_frame, &w, 0);
	switch (w.r.end_reason) {
	case END_OUTERMOST:
		c->outermost++;
		break;
	case END_RETURN_ZERO:
		c->return_zero++;
		break;
	case END_NON_CANONICAL:
		c->non_canonical++;
		break;
	case END_READ_FAILED:
		c->read_failed++;
		break;
	case END_TRUNCATED:
		c->truncated++;
		break;
	default: /* and a walk bpf_loop refused: no frame */
		c->bad_frame++;
		break;
	}
	frames = w.frames;
	if (!frames || frames > RT_MAX_STACK_DEPTH)
		return n;
	end = n + 1 + frames;
	barrier_var(end); /* checked as the word count the caller bounds */
	if (end > RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS)
		return n;
	return end;
}

/* A process forked has its parent's mappings until it execs: known from its
 * first sample, before the loader has read the fork from the side-band. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(unwind_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct rt_process_mappings *pm;

	if (ptgid == ctgid)
		return 0; /* a thread */
	pm = bpf_map_lookup_elem(&process_mappings, &ptgid);
	if (!pm || bpf_map_update_elem(&process_mappings, &ctgid, pm, BPF_NOEXIST))
		return 0;
	/* the child has not run yet: no sample sees it before this */
	pm = bpf_map_lookup_elem(&process_mappings, &ctgid);
	if (pm)
		pm->flags = RT_MAPPINGS_INHERITED; /* never a parent's insertion under way */
	return 0;
}

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym;

/* A process that execs has its new image's mappings here at once (the
 * program's and the dynamic loader's, by file: their tables are used from
 * the moment they are loaded), so that its first samples unwind before the
 * loader has read its MMAP2s; never the old image's, nor those it inherited
 * from its parent. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(unwind_exec, struct task_struct *task)
{
	__u32 tgid = task->tgid, zero = 0, nr = 0;
	struct rt_process_mappings *fresh;
	struct rt_unwind_counters *c;
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;

	bpf_map_delete_elem(&process_mappings, &tgid);
	if (!mappings_in_scope())
		return 0;
	fresh = bpf_map_lookup_elem(&exec_mappings, &zero);
	c = bpf_map_lookup_elem(&unwind_counters, &zero);
	if (!fresh || !c)
		return 0;
	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		struct rt_unwind_file_key key;
		struct file *file;

		if (!(vma->vm_flags & VM_EXEC_FLAG) || !(file = vma->vm_file))
			continue;
		if (nr >= EXEC_MAPPINGS_MAX) {
			c->kernel_mappings_left++;
			break;
		}
		file_key_of(&key, file);
		set_kernel_mapping(&fresh->m[nr], &key, vma->vm_start, vma->vm_end, vma->vm_pgoff);
		nr++;
	}
	bpf_iter_task_vma_destroy(&it);
	fresh->nr = nr;
	fresh->flags = 0;
	if (!bpf_map_update_elem(&process_mappings, &tgid, fresh, BPF_ANY))
		c->kernel_mappings += nr;
	return 0;
}

#endif
