/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_loader.h: writes unwind rows, their page index and processes'
 * executable mappings into the BPF sampler's maps, for the in-kernel unwinder
 * (--call-graph ehframe); a table's rows are taken from the free extents of
 * the rows map and given back, once retired, when no walk can use them. */
#ifndef RINGTRACE_UNWIND_LOADER_H
#define RINGTRACE_UNWIND_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "lib/extents.h"
#include "unwind_maps.h"

struct unwind_maps {
	int rows_fd, pages_fd, processes_fd, files_fd, gen_fd, wanted_fd;
	/* the walks' count of keys put in unwind_wanted, and its value when
	 * the map was last found empty */
	const volatile __u64 *wanted_added;
	uint64_t wanted_emptied_at;
	/* the count of changes to processes' mappings (mappings_gen), as
	 * mapped here: one added after each write of a process's */
	uint64_t *gen_mem;
	size_t gen_mem_size;
	/* the rows and the page index (BPF_F_MMAPABLE arrays) are written by
	 * memcpy into a window mapped for each write, where a bpf() batch
	 * update of cc1's 480,000 rows took 100 ms; false if they cannot be
	 * mapped (then bpf()) */
	bool rows_mappable, pages_mappable;
	uint32_t capacity;       /* rows the map holds */
	uint32_t pages_capacity; /* page index entries the map holds */
	struct extents rows_free, pages_free;
	/* tables retired, their slots free again once the side-band is
	 * tracked past their time */
	struct retired_table *retired;
	size_t nr_retired, retired_cap;
	uint64_t retired_rows;  /* rows of the tables retired, not yet free */
	uint64_t without_index; /* tables whose index found no room: searched whole */
	uint64_t slots_leaked;  /* rows of tables retired when memory ran out */
};

/* -ENOMEM if memory ran out, -errno if the count of changes cannot be mapped. */
int unwind_maps_init(struct unwind_maps *u, const struct bpf_sampler *s, uint32_t capacity);
/* Unmaps what init mapped. */
void unwind_maps_free(struct unwind_maps *u);
/* The page index of rows[0..nr) (sorted by pc, nr > 0) into pages, which has
 * room for nr / RT_UNWIND_ROWS_PER_PAGE + 1 entries: the narrowest pages
 * that fit. Sets t's page_base, page_shift and nr_pages. */
void unwind_page_index(const struct rt_unwind_row *rows, uint32_t nr, uint32_t *pages,
		       struct rt_unwind_slice *t);
/* Rows in the map: taken by tables loaded or retired. */
uint32_t unwind_maps_rows_taken(const struct unwind_maps *u);
/* Writes nr rows into the first free extent that holds them, and their page
 * index where it has room; *t says where. -ENOSPC (errno set too) if no
 * extent holds the rows, or the bpf() error as -errno. */
int unwind_maps_add_rows(struct unwind_maps *u, const struct rt_unwind_row *rows, uint32_t nr,
			 struct rt_unwind_slice *t);
/* Names the loaded table t of the file id, for the kernel side to map a new
 * image by at its exec (best effort: a full map leaves it to the loader). */
void unwind_maps_add_file(struct unwind_maps *u, const struct rt_unwind_file_key *id,
			  const struct rt_unwind_slice *t, int64_t exec_vaddr_delta);
/* The file id's table is no longer named to the kernel side. */
void unwind_maps_forget_file(struct unwind_maps *u, const struct rt_unwind_file_key *id);
/* Up to max of the files walks met without a table (--unwind-tables
 * sampled), taken out of the map into ids: how many. */
size_t unwind_maps_take_wanted(struct unwind_maps *u, struct rt_unwind_file_key *ids, size_t max);
/* The table t is retired at time stamp (CLOCK_MONOTONIC ns): no process the
 * loader knows maps its rows, and the kernel side names them no more; a
 * process that the kernel side gave them before (at its exec) until the
 * loader tracks its mappings keeps them until then. */
void unwind_maps_retire(struct unwind_maps *u, const struct rt_unwind_slice *t, uint64_t stamp);
/* The tables retired at or before until are free to reuse: the side-band
 * stamped until then has been tracked, and with it every process that could
 * have been given their rows. */
void unwind_maps_reclaim(struct unwind_maps *u, uint64_t until);
/* Replaces what the unwinder knows of process pid's mappings. */
int unwind_maps_set_process(struct unwind_maps *u, uint32_t pid,
			    const struct rt_process_mappings *pm);
void unwind_maps_forget_process(struct unwind_maps *u, uint32_t pid);

#endif
