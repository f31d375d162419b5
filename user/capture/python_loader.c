/* SPDX-License-Identifier: GPL-2.0-only */
/* python_loader.c: tells the -g walk of CPython processes (their interpreter's
 * addresses, the offsets table) and takes the code objects it wrote. */
#include "capture/python_loader.h"

#include <bpf/bpf.h>
#include <errno.h>

void python_maps_init(struct python_maps *p, const struct bpf_sampler *s)
{
	bpf_sampler_python_fds(s, &p->processes_fd, &p->offsets_fd, &p->seen_fd, &p->known_fd);
	p->known = false;
	p->seen_added = bpf_sampler_python_seen_added(s);
	p->seen_emptied_at = 0;
}

int python_maps_set_offsets(struct python_maps *p, uint32_t index,
			    const struct rt_python_offsets *o)
{
	return bpf_map_update_elem(p->offsets_fd, &index, o, BPF_ANY) ? -errno : 0;
}

int python_maps_set_process(struct python_maps *p, uint32_t pid,
			    const struct rt_python_process *pp)
{
	__u64 one = 1;
	__u32 zero = 0;

	if (bpf_map_update_elem(p->processes_fd, &pid, pp, BPF_ANY))
		return -errno;
	/* from now on the walks look their process up */
	if (!p->known && !bpf_map_update_elem(p->known_fd, &zero, &one, BPF_ANY))
		p->known = true;
	return 0;
}

void python_maps_forget_process(struct python_maps *p, uint32_t pid)
{
	bpf_map_delete_elem(p->processes_fd, &pid);
}

size_t python_maps_take_seen(struct python_maps *p, struct rt_python_code_key *keys,
			     struct rt_python_code_info *infos, size_t max)
{
	uint64_t added = *p->seen_added;
	size_t nr = 0;

	/* nothing put in since it was found empty */
	if (added == p->seen_emptied_at)
		return 0;
	/* from the first key each time: those taken are deleted */
	while (nr < max) {
		if (bpf_map_get_next_key(p->seen_fd, NULL, &keys[nr])) {
			p->seen_emptied_at = added;
			break;
		}
		if (bpf_map_lookup_and_delete_elem(p->seen_fd, &keys[nr], &infos[nr])) {
			/* (a kernel without it for hash maps: read, then delete) */
			if (bpf_map_lookup_elem(p->seen_fd, &keys[nr], &infos[nr]))
				infos[nr] = (struct rt_python_code_info){ 0 };
			if (bpf_map_delete_elem(p->seen_fd, &keys[nr]))
				break;
		}
		nr++;
	}
	return nr;
}
