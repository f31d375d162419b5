/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_rows.bpf.h: the mapping of a walk's process holding a pc, and the row of the
 * file's table in force there: the page index narrows the search, a per-CPU
 * cache of checked guesses skips it, and one of rows by pc skips both */
#ifndef RINGTRACE_EHFRAME_ROWS_BPF_H
#define RINGTRACE_EHFRAME_ROWS_BPF_H

#include "ehframe_state.bpf.h"

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

/* Whether mapping i of pm holds pc. */
static __always_inline bool mapping_holds(const struct rt_process_mappings *pm, __s32 i, __u64 pc)
{
	return i >= 0 && i < RT_UNWIND_MAX_MAPPINGS && (__u32)i < pm->nr && pc >= pm->m[i].start &&
	       pc < pm->m[i].end;
}

/* The guesses' slot for the mapping of the page of pc. */
static __always_inline __u32 mapping_guess_slot(__u64 pc)
{
	return ((__u32)(pc >> 12) * 0x9E3779B1u) >> (32 - MAPPING_GUESS_BITS);
}

/* The index of the memo's mapping holding pc, or -1. A function of its own,
 * which the verifier checks once. */
__noinline int memo_mapping(const struct mappings_memo *memo, __u64 pc)
{
	if (!memo)
		return -1;
	for (int k = 0; k < MEMO_MAPPINGS; k++)
		if (k < memo->nr && pc >= memo->m[k].start && pc < memo->m[k].end)
			return k;
	return -1;
}

/* Copies mapping m into the walk's memo, when it is of this walk. */
static __always_inline void memo_keep(struct unwind_walk *w, const struct rt_unwind_mapping *m)
{
	struct mappings_memo *memo = &w->guesses->memo;
	__u32 nr = memo->nr;

	if (!memo->in_use || nr >= MEMO_MAPPINGS)
		return;
	memo->m[nr & (MEMO_MAPPINGS - 1)] = *m;
	memo->nr = nr + 1;
}

/* The mapping among pm's (w's process's) covering pc, the walk's frame i,
 * or NULL: the last frame's first (a stack's frames are mostly in one file),
 * then the one of the last walk's frame i, then the one guessed for pc's
 * page, else a binary search. A function of its own, as find_row: their
 * searches' state and spills in frames beside the walk's other callees',
 * not in the frame of each step, which the verifier adds to the chain of
 * every walk's callers (at most 512 bytes where a kernel gives no private
 * stacks: test_bpf_limits). */
static __noinline const struct rt_unwind_mapping *
find_mapping(struct unwind_walk *w, const struct rt_process_mappings *pm, __u64 pc, __u32 i)
{
	struct mapping_search r = { pm, pc, 0, pm->nr, -1 };
	__u32 slot = mapping_guess_slot(pc) & ((1u << MAPPING_GUESS_BITS) - 1);
	__u8 *by_frame = &w->guesses->frame_mapping[i & (FRAME_GUESSES - 1)];
	__s32 found = w->guesses->walk.last_mapping;

	if (mapping_holds(pm, found, pc))
		goto found;
	found = *by_frame;
	if (i < FRAME_GUESSES && mapping_holds(pm, found, pc))
		goto found;
	found = w->guesses->mapping[slot];
	if (!mapping_holds(pm, found, pc)) {
		bpf_loop(RT_UNWIND_MAPPING_STEPS, mapping_search_step, &r, 0);
		found = r.found;
		if (found < 0 || found >= RT_UNWIND_MAX_MAPPINGS)
			return NULL;
		w->guesses->mapping[slot] = (__u8)found;
	}
found:
	if (found < 0 || found >= RT_UNWIND_MAX_MAPPINGS)
		return NULL;
	if (i < FRAME_GUESSES)
		*by_frame = (__u8)found;
	w->guesses->walk.last_mapping = found;
	memo_keep(w, &pm->m[found]);
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

/* The guesses' slot for vaddr in the table whose rows start at first. */
static __always_inline __u32 row_guess_slot(__u32 first, __u32 vaddr)
{
	return ((vaddr ^ first * 0x9E3779B1u) * 0x85EBCA6Bu) >> (32 - ROW_GUESS_BITS);
}

/* Keeps row (index found among [first, last]) in g as the one in force at
 * the file addresses up to the next row's pc. */
static __always_inline void keep_row_guess(struct row_guess *g, __u32 first, __u32 found,
					   __u32 last, const struct rt_unwind_row *row)
{
	const struct rt_unwind_row *next = NULL;
	__u32 after = found + 1;

	if (found < last)
		next = bpf_map_lookup_elem(&unwind_rows, &after);
	else if (found > last)
		return;
	g->first_row = first;
	g->lo = row->pc;
	g->hi = next ? next->pc : ~0u;
	g->row = *row;
}

/* Whether g is a guess for vaddr in the table whose rows start at first. */
static __always_inline bool row_guess_holds(const struct row_guess *g, __u32 first, __u32 vaddr)
{
	return g->first_row == first && g->lo <= vaddr && vaddr < g->hi;
}

/* The row in force at the file's virtual address vaddr, the walk's frame i,
 * or NULL: the one of the last walk's frame i, or the one guessed for
 * vaddr, else found (the page index naming the rows to search among) and
 * kept as the slot's guess (and the frame's). A function of its own (see
 * find_mapping). */
static __noinline const struct rt_unwind_row *
find_row(struct walk_guesses *guesses, const struct rt_unwind_slice *t, __u32 vaddr, __u32 i)
{
	__u32 first = t->first_row, last = t->first_row + t->nr_rows - 1, page, at;
	__u32 slot = row_guess_slot(first, vaddr) & ((1u << ROW_GUESS_BITS) - 1);
	struct row_guess *g = &guesses->row[slot];
	struct row_guess *by_frame = &guesses->frame_row[i & (FRAME_GUESSES - 1)];
	const struct rt_unwind_row *row;
	const __u32 *entry;
	__u32 lo, hi, found;

	if (i < FRAME_GUESSES && row_guess_holds(by_frame, first, vaddr))
		return &by_frame->row;
	if (row_guess_holds(g, first, vaddr)) {
		if (i < FRAME_GUESSES)
			*by_frame = *g;
		return &g->row;
	}
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
	row = bpf_map_lookup_elem(&unwind_rows, &found);
	if (row) {
		keep_row_guess(g, first, found, last, row);
		if (i < FRAME_GUESSES)
			*by_frame = *g;
	}
	return row;
}

/* The slot of pc among a walk's rows by pc (walk_guesses' pc_rows), the
 * first (way 0) or the second (way 1) of the two it may be kept in: with one
 * slot, two of a stack's return addresses hashed alike (~15% of the chain's
 * runs, by where ASLR put its code) took each other's slot at each sample,
 * and a fifth of its frames went the full way. */
static __always_inline struct pc_row *pc_row_slot(struct walk_guesses *g, __u64 pc, __u32 way)
{
	return &g->pc_rows[((((__u32)pc * 0x9E3779B1u) >> (32 - PC_ROW_BITS)) ^ way) &
			   ((1u << PC_ROW_BITS) - 1)];
}

/* Whether slot pr holds the row of pc for the walks of this process while
 * its mappings are as they are (the count read at the walk's start). */
static __always_inline bool pc_row_holds(const struct pc_row *pr, const struct walk_state *ws,
					 __u64 pc)
{
	return pr->pc == pc && pr->gen == ws->gen && pr->tgid == ws->tgid;
}

/* The row a walk of this process found for pc while its mappings were as
 * they are, or NULL. */
static __always_inline const struct rt_unwind_row *pc_row_of(struct walk_guesses *g, __u64 pc)
{
	const struct walk_state *ws = &g->walk;
	struct pc_row *pr = pc_row_slot(g, pc, 0);

	if (!ws->quick)
		return NULL;
	if (pc_row_holds(pr, ws, pc))
		return &pr->row;
	pr = pc_row_slot(g, pc, 1);
	return pc_row_holds(pr, ws, pc) ? &pr->row : NULL;
}

/* Keeps row as the one in force at pc for the walks of this process while
 * its mappings are as they were at this walk's start (where its walks take
 * quick frames: walk_state's quick). */
static __always_inline void keep_pc_row(struct walk_guesses *g, __u64 pc,
					const struct rt_unwind_row *row)
{
	const struct walk_state *ws = &g->walk;
	struct pc_row *pr = pc_row_slot(g, pc, 0);

	/* only rows the quick path steps by, or ends at: a first stage's
	 * table leaves its long FDEs to frame pointers, and its whole table,
	 * which replaces it, has their rows (the count of changes to a
	 * process's mappings does not move for that) */
	if (!ws->quick ||
	    (row->cfa != RT_CFA_RSP && row->cfa != RT_CFA_RBP && row->cfa != RT_CFA_OUTERMOST))
		return;
	/* the first slot unless it holds another pc of this process's now */
	if (pr->pc != pc && pr->gen == ws->gen && pr->tgid == ws->tgid)
		pr = pc_row_slot(g, pc, 1);
	pr->pc = pc;
	pr->gen = ws->gen;
	pr->tgid = ws->tgid;
	pr->row = *row;
}

#endif
