/* SPDX-License-Identifier: GPL-2.0-only */
/* python_loader.h: tells the -g walk of CPython processes (their interpreter's
 * addresses, the offsets table) and takes the code objects it wrote. */
#ifndef RINGTRACE_PYTHON_LOADER_H
#define RINGTRACE_PYTHON_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/seen_map.h"
#include "python_maps.h"

struct python_maps {
	int processes_fd, offsets_fd, known_fd;
	bool known; /* python_known set */
	struct seen_map seen; /* python_code_seen */
};

void python_maps_init(struct python_maps *p, const struct bpf_sampler *s);
/* Entry index of the offsets table: 0, or -errno. */
int python_maps_set_offsets(struct python_maps *p, uint32_t index,
			    const struct rt_python_offsets *o);
/* pid is a CPython process: 0, or -errno (-E2BIG: the map is full). */
int python_maps_set_process(struct python_maps *p, uint32_t pid,
			    const struct rt_python_process *pp);
void python_maps_forget_process(struct python_maps *p, uint32_t pid);
/* Up to max code objects the walks wrote since the last call, into keys
 * and what the walk read of each into infos (taken out of the map): how many. */
size_t python_maps_take_seen(struct python_maps *p, struct rt_python_code_key *keys,
			     struct rt_python_code_info *infos, size_t max);

#endif
