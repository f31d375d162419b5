/* SPDX-License-Identifier: GPL-2.0-only */
/* ehframe_rows.bpf.h: the mapping of a walk's process holding a pc, and the row of the
 * file's table in force there: the page index narrows the search, a per-CPU
 * cache of checked guesses skips it */
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

#endif
