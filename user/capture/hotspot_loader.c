/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_loader.c: tells the -g walk of JVMs (where their interpreter is, the
 * offsets of their structures) and takes the methods it wrote. */
#include "capture/hotspot_loader.h"

#include <bpf/bpf.h>
#include <errno.h>

void hotspot_maps_init(struct hotspot_maps *h, const struct bpf_sampler *s)
{
	bpf_sampler_hotspot_fds(s, &h->processes_fd, &h->offsets_fd, &h->seen.fd, &h->known_fd);
	h->known = false;
	h->seen.added = bpf_sampler_hotspot_seen_added(s);
	h->seen.emptied_at = 0;
}

int hotspot_maps_set_offsets(struct hotspot_maps *h, uint32_t index,
			     const struct rt_hotspot_offsets *o)
{
	return bpf_map_update_elem(h->offsets_fd, &index, o, BPF_ANY) ? -errno : 0;
}

int hotspot_maps_set_process(struct hotspot_maps *h, uint32_t pid,
			     const struct rt_hotspot_process *hp)
{
	__u64 one = 1;
	__u32 zero = 0;

	if (bpf_map_update_elem(h->processes_fd, &pid, hp, BPF_ANY))
		return -errno;
	/* from now on the walks look their process up */
	if (!h->known && !bpf_map_update_elem(h->known_fd, &zero, &one, BPF_ANY))
		h->known = true;
	return 0;
}

void hotspot_maps_forget_process(struct hotspot_maps *h, uint32_t pid)
{
	bpf_map_delete_elem(h->processes_fd, &pid);
}

size_t hotspot_maps_take_seen(struct hotspot_maps *h, struct rt_hotspot_method_key *keys,
			      struct rt_hotspot_method_info *infos, size_t max)
{
	return seen_map_take(&h->seen, keys, sizeof(*keys), infos, sizeof(*infos), max);
}
