/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_loader.h: tells the -g walk of Node.js processes (where V8's builtins are,
 * the offsets of the objects a frame names) and takes the functions it wrote. */
#ifndef RINGTRACE_V8_LOADER_H
#define RINGTRACE_V8_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/seen_map.h"
#include "v8_maps.h"

struct v8_maps {
	int processes_fd, known_fd, inlines_fd;
	bool known;           /* v8_known set */
	struct seen_map seen; /* v8_functions_seen */
	struct seen_map code_seen; /* v8_code_seen */
};

void v8_maps_init(struct v8_maps *m, const struct bpf_sampler *s);
/* pid runs V8 laid out as vp says: 0, or -errno (-E2BIG: the map is full). */
int v8_maps_set_process(struct v8_maps *m, uint32_t pid, const struct rt_v8_process *vp);
void v8_maps_forget_process(struct v8_maps *m, uint32_t pid);
/* Up to max functions the walks wrote since the last call, into keys and
 * what the walk read of each into infos (taken out of the map): how many. */
size_t v8_maps_take_seen(struct v8_maps *m, struct rt_v8_function_key *keys,
			 struct rt_v8_function_info *infos, size_t max);

/* Up to max pcs of optimized code the walks met undecoded since the last
 * call, into keys and infos (taken out of the map): how many. */
size_t v8_maps_take_code_seen(struct v8_maps *m, struct rt_v8_pc_key *keys,
			      struct rt_v8_pc_info *infos, size_t max);
/* The functions at the pc key names, for the walks: 0, or -errno. */
int v8_maps_set_inlined(struct v8_maps *m, const struct rt_v8_pc_key *key,
			const struct rt_v8_inlined *in);

#endif
