/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_loader.c: tells the -g walk of Node.js processes (where V8's builtins are,
 * the offsets of the objects a frame names) and takes the functions it wrote. */
#include "capture/v8_loader.h"

#include <bpf/bpf.h>
#include <errno.h>

void v8_maps_init(struct v8_maps *m, const struct bpf_sampler *s)
{
	bpf_sampler_v8_fds(s, &m->processes_fd, &m->seen.fd, &m->known_fd, &m->inlines_fd,
			   &m->code_seen.fd);
	m->known = false;
	m->seen.added = bpf_sampler_v8_seen_added(s);
	m->seen.emptied_at = 0;
	m->code_seen.added = bpf_sampler_v8_code_seen_added(s);
	m->code_seen.emptied_at = 0;
}

int v8_maps_set_process(struct v8_maps *m, uint32_t pid, const struct rt_v8_process *vp)
{
	__u64 one = 1;
	__u32 zero = 0;

	if (bpf_map_update_elem(m->processes_fd, &pid, vp, BPF_ANY))
		return -errno;
	/* from now on the walks look their process up */
	if (!m->known && !bpf_map_update_elem(m->known_fd, &zero, &one, BPF_ANY))
		m->known = true;
	return 0;
}

void v8_maps_forget_process(struct v8_maps *m, uint32_t pid)
{
	bpf_map_delete_elem(m->processes_fd, &pid);
}

size_t v8_maps_take_code_seen(struct v8_maps *m, struct rt_v8_pc_key *keys,
			      struct rt_v8_pc_info *infos, size_t max)
{
	return seen_map_take(&m->code_seen, keys, sizeof(*keys), infos, sizeof(*infos), max);
}

int v8_maps_set_inlined(struct v8_maps *m, const struct rt_v8_pc_key *key,
			const struct rt_v8_inlined *in)
{
	return bpf_map_update_elem(m->inlines_fd, key, in, BPF_ANY) ? -errno : 0;
}

size_t v8_maps_take_seen(struct v8_maps *m, struct rt_v8_function_key *keys,
			 struct rt_v8_function_info *infos, size_t max)
{
	return seen_map_take(&m->seen, keys, sizeof(*keys), infos, sizeof(*infos), max);
}
