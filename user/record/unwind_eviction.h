/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_eviction.h: room in the rows map for a table that finds none, made
 * by evicting the tables of files no tracked process maps, least recently
 * mapped first; a table waits (its mappings on frame pointers meanwhile)
 * until the rows evicted are safe to reuse, or goes without. */
#ifndef RINGTRACE_UNWIND_EVICTION_H
#define RINGTRACE_UNWIND_EVICTION_H

#include <stdint.h>

#include "record/unwind_tables_state.h"

enum unwind_load {
	UNWIND_LOADED,  /* in the map, given to the processes mapping the file */
	UNWIND_WAITING, /* kept (the rows are the loader's now) until room is free */
	UNWIND_NO_ROOM, /* no room, none to be made (counted, f tried again later):
			 * the caller frees the rows */
	UNWIND_FAILED,  /* the map could not be written (errno) */
};

/* Loads f's table of nr rows (replacing the one it has: a first stage's,
 * retired), evicting others if need be; may_wait: it may wait for room (a
 * first stage's table may not: the whole follows). */
enum unwind_load unwind_load_rows(struct unwind_tables *t, struct unwind_file *f,
				  struct rt_unwind_row *rows, uint32_t nr, bool may_wait);
/* The side-band is tracked up to until (CLOCK_MONOTONIC ns): the rows
 * retired by then are free, and the tables waiting for room are loaded. */
void unwind_reclaim(struct unwind_tables *t, uint64_t until);
/* Frees the rows of the tables still waiting. */
void unwind_waiting_free(struct unwind_tables *t);
/* Forgets the files without a table (or none compiled yet) that no tracked
 * process maps (--unwind-tables sampled: bounded by what is mapped now). */
void unwind_prune_unmapped(struct unwind_tables *t);

#endif
