/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_loader.h: writes unwind rows and processes' executable mappings into
 * the BPF sampler's maps, for the in-kernel unwinder (--call-graph ehframe). */
#ifndef RINGTRACE_UNWIND_LOADER_H
#define RINGTRACE_UNWIND_LOADER_H

#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "unwind_maps.h"

struct unwind_maps {
	int rows_fd, processes_fd;
	uint32_t capacity; /* rows the map holds */
	uint32_t used;     /* rows written */
};

void unwind_maps_init(struct unwind_maps *u, const struct bpf_sampler *s, uint32_t capacity);
/* Writes nr rows after those written; *first is the first one's index.
 * -1 with errno ENOSPC if they do not fit, or the bpf() error. */
int unwind_maps_add_rows(struct unwind_maps *u, const struct rt_unwind_row *rows, uint32_t nr,
			 uint32_t *first);
/* Replaces what the unwinder knows of process pid's mappings. */
int unwind_maps_set_process(struct unwind_maps *u, uint32_t pid,
			    const struct rt_process_mappings *pm);
void unwind_maps_forget_process(struct unwind_maps *u, uint32_t pid);

#endif
