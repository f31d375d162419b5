/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_loader.c: writes unwind rows and processes' executable mappings into
 * the BPF sampler's maps, for the in-kernel unwinder (--call-graph ehframe). */
#include "capture/unwind_loader.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>

void unwind_maps_init(struct unwind_maps *u, const struct bpf_sampler *s, uint32_t capacity)
{
	bpf_sampler_unwind_fds(s, &u->rows_fd, &u->processes_fd);
	u->capacity = capacity;
	u->used = 0;
}

int unwind_maps_add_rows(struct unwind_maps *u, const struct rt_unwind_row *rows, uint32_t nr,
			 uint32_t *first)
{
	uint32_t *keys;
	__u32 count = nr;
	int r;

	if (nr > u->capacity - u->used) {
		errno = ENOSPC;
		return -1;
	}
	keys = malloc((size_t)nr * sizeof(*keys));
	if (!keys)
		return -1;
	for (uint32_t i = 0; i < nr; i++)
		keys[i] = u->used + i;
	r = bpf_map_update_batch(u->rows_fd, keys, rows, &count, NULL);
	/* a kernel without batched updates of arrays: one at a time */
	for (uint32_t i = 0; r && errno == EINVAL && i < nr; i++)
		if (bpf_map_update_elem(u->rows_fd, &keys[i], &rows[i], BPF_ANY))
			break;
		else if (i == nr - 1)
			r = 0;
	free(keys);
	if (r)
		return -1;
	*first = u->used;
	u->used += nr;
	return 0;
}

int unwind_maps_set_process(struct unwind_maps *u, uint32_t pid,
			    const struct rt_process_mappings *pm)
{
	return bpf_map_update_elem(u->processes_fd, &pid, pm, BPF_ANY);
}

void unwind_maps_forget_process(struct unwind_maps *u, uint32_t pid)
{
	bpf_map_delete_elem(u->processes_fd, &pid);
}
