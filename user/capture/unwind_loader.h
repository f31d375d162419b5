/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_loader.h: writes unwind rows, their page index and processes'
 * executable mappings into the BPF sampler's maps, for the in-kernel unwinder
 * (--call-graph ehframe). */
#ifndef RINGTRACE_UNWIND_LOADER_H
#define RINGTRACE_UNWIND_LOADER_H

#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "unwind_maps.h"

struct unwind_maps {
	int rows_fd, pages_fd, processes_fd, files_fd;
	/* the rows and the page index as mapped here (BPF_F_MMAPABLE arrays):
	 * written by memcpy, where a bpf() batch update of cc1's 480,000 rows
	 * took 100 ms; NULL if they could not be mapped (then bpf()) */
	struct rt_unwind_row *rows_mem;
	uint64_t *pages_mem; /* one u32 entry per 8 bytes, as the kernel lays it out */
	size_t rows_mem_size, pages_mem_size;
	uint32_t capacity;       /* rows the map holds */
	uint32_t used;           /* rows written */
	uint32_t pages_capacity; /* page index entries the map holds */
	uint32_t pages_used;
	uint64_t without_index;  /* tables whose index found no room: searched whole */
};

void unwind_maps_init(struct unwind_maps *u, const struct bpf_sampler *s, uint32_t capacity);
/* Unmaps what init mapped. */
void unwind_maps_free(struct unwind_maps *u);
/* The page index of rows[0..nr) (sorted by pc, nr > 0) into pages, which has
 * room for nr / RT_UNWIND_ROWS_PER_PAGE + 1 entries: the narrowest pages
 * that fit. Sets t's page_base, page_shift and nr_pages. */
void unwind_page_index(const struct rt_unwind_row *rows, uint32_t nr, uint32_t *pages,
		       struct rt_unwind_slice *t);
/* Writes nr rows after those written, and their page index where it has
 * room; *t says where. -ENOSPC (errno set too) if the rows do not fit, or the
 * bpf() error as -errno. */
int unwind_maps_add_rows(struct unwind_maps *u, const struct rt_unwind_row *rows, uint32_t nr,
			 struct rt_unwind_slice *t);
/* Names the loaded table t of the file id, for the kernel side to map a new
 * image by at its exec (best effort: a full map leaves it to the loader). */
void unwind_maps_add_file(struct unwind_maps *u, const struct rt_unwind_file_key *id,
			  const struct rt_unwind_slice *t, int64_t exec_vaddr_delta);
/* Replaces what the unwinder knows of process pid's mappings. */
int unwind_maps_set_process(struct unwind_maps *u, uint32_t pid,
			    const struct rt_process_mappings *pm);
void unwind_maps_forget_process(struct unwind_maps *u, uint32_t pid);

#endif
