/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_loader.h: tells the -g walk of JVMs (where their interpreter is, the
 * offsets of their structures) and takes the methods it wrote. */
#ifndef RINGTRACE_HOTSPOT_LOADER_H
#define RINGTRACE_HOTSPOT_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/seen_map.h"
#include "hotspot_maps.h"

struct hotspot_maps {
	int processes_fd, offsets_fd, known_fd;
	bool known;           /* hotspot_known set */
	struct seen_map seen; /* hotspot_methods_seen */
};

void hotspot_maps_init(struct hotspot_maps *h, const struct bpf_sampler *s);
/* Entry index of the offsets: 0, or -errno. */
int hotspot_maps_set_offsets(struct hotspot_maps *h, uint32_t index,
			     const struct rt_hotspot_offsets *o);
/* pid is a JVM: 0, or -errno (-E2BIG: the map is full). */
int hotspot_maps_set_process(struct hotspot_maps *h, uint32_t pid,
			     const struct rt_hotspot_process *hp);
void hotspot_maps_forget_process(struct hotspot_maps *h, uint32_t pid);
/* Up to max methods the walks wrote since the last call, into keys and
 * what the walk read of each into infos (taken out of the map): how many. */
size_t hotspot_maps_take_seen(struct hotspot_maps *h, struct rt_hotspot_method_key *keys,
			      struct rt_hotspot_method_info *infos, size_t max);

#endif
