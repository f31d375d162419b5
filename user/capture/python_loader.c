/* SPDX-License-Identifier: GPL-2.0-only */
/* python_loader.c: tells the -g walk of CPython processes (their interpreter's
 * addresses, the offsets table) and takes the code objects it wrote. */
#include "capture/python_loader.h"

#include <bpf/bpf.h>
#include <errno.h>

void python_maps_init(struct python_maps *p, const struct bpf_sampler *s)
{
	bpf_sampler_python_fds(s, &p->processes_fd, &p->offsets_fd, &p->seen.fd, &p->known_fd);
	p->known = false;
	p->seen.added = bpf_sampler_python_seen_added(s);
	p->seen.emptied_at = 0;
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
	return seen_map_take(&p->seen, keys, sizeof(*keys), infos, sizeof(*infos), max);
}
