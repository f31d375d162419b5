/* SPDX-License-Identifier: GPL-2.0-only */
/* sampler_counters.c: what the BPF sampler's maps and programs count, read
 * for the totals and the metrics: per CPU (produced, lost), the unwinder's
 * and off-CPU's sums over CPUs, the programs' runs and missed runs, and the
 * maps the unwinder's loader and the scope's follower write. */
#include "capture/bpf_sampler_state.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/bpf_stats.h"

size_t bpf_sampler_program_stats(const struct bpf_sampler *s, struct bpf_program_runs *out,
				 size_t max)
{
	return bpf_stats_read(s->skel->obj, out, max);
}

uint64_t bpf_sampler_unreported_losses(const struct bpf_sampler *s, int cpu, uint64_t *time)
{
	struct rt_cpu_counters c;
	uint64_t reported, held, held_time;

	*time = 0;
	if (bpf_sampler_counters(s, cpu, &c))
		return 0;
	/* the BPF rings, and own rings read forward: what the BPF side has
	 * not written out as a LOST record yet */
	if (!s->backward && s->transport_kind != TRANSPORT_PERFBUF) {
		*time = c.pending_time;
		return c.pending_lost;
	}
	/* the BPF side counted every failed output; the kernel reported some
	 * in LOST records (and may hold one nothing came after) */
	reported = transport_kernel_lost(s->transport, cpu, &held, &held_time);
	if (c.lost <= reported)
		return 0;
	*time = held ? held_time : c.last_lost_time;
	return c.lost - reported;
}

uint64_t bpf_sampler_missed_runs(const struct bpf_sampler *s)
{
	const struct bpf_program *progs[] = { s->skel->progs.on_perf_event,
					       s->skel->progs.on_tracepoint,
					       s->skel->progs.on_uprobe, s->skel->progs.on_usdt,
					       s->skel->progs.offcpu_switch };
	uint64_t missed = 0;

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(progs[i]), &info, &len))
			missed += info.recursion_misses;
	}
	return missed;
}

int bpf_sampler_counters(const struct bpf_sampler *s, int cpu, struct rt_cpu_counters *out)
{
	struct rt_cpu_counters *all;
	__u32 zero = 0;
	int ret;

	if (cpu < 0 || cpu >= s->nr_possible)
		return -EINVAL;
	all = calloc((size_t)s->nr_possible, sizeof(*all));
	if (!all)
		return -ENOMEM;
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &zero, all)) {
		*out = all[cpu];
		ret = 0;
	} else {
		ret = -errno;
	}
	free(all);
	return ret;
}

void bpf_sampler_unwind_fds(const struct bpf_sampler *s, int *rows_fd, int *pages_fd,
			    int *processes_fd, int *files_fd, int *gen_fd, int *wanted_fd)
{
	*wanted_fd = bpf_map__fd(s->skel->maps.unwind_wanted);
	*gen_fd = bpf_map__fd(s->skel->maps.mappings_gen);
	*files_fd = bpf_map__fd(s->skel->maps.unwind_files);
	*rows_fd = bpf_map__fd(s->skel->maps.unwind_rows);
	*pages_fd = bpf_map__fd(s->skel->maps.unwind_pages);
	*processes_fd = bpf_map__fd(s->skel->maps.process_mappings);
}

const volatile __u64 *bpf_sampler_wanted_added(const struct bpf_sampler *s)
{
	return &s->skel->bss->unwind_wanted_added;
}

const volatile __u64 *bpf_sampler_python_seen_added(const struct bpf_sampler *s)
{
	return &s->skel->bss->python_seen_added;
}

const volatile __u64 *bpf_sampler_hotspot_seen_added(const struct bpf_sampler *s)
{
	return &s->skel->bss->hotspot_seen_added;
}

void bpf_sampler_hotspot_fds(const struct bpf_sampler *s, int *processes_fd, int *offsets_fd,
			     int *seen_fd, int *known_fd)
{
	*processes_fd = bpf_map__fd(s->skel->maps.hotspot_processes);
	*offsets_fd = bpf_map__fd(s->skel->maps.hotspot_offsets);
	*seen_fd = bpf_map__fd(s->skel->maps.hotspot_methods_seen);
	*known_fd = bpf_map__fd(s->skel->maps.hotspot_known);
}

const volatile __u64 *bpf_sampler_v8_seen_added(const struct bpf_sampler *s)
{
	return &s->skel->bss->v8_seen_added;
}

const volatile __u64 *bpf_sampler_v8_code_seen_added(const struct bpf_sampler *s)
{
	return &s->skel->bss->v8_code_seen_added;
}

void bpf_sampler_v8_fds(const struct bpf_sampler *s, int *processes_fd, int *seen_fd,
			int *known_fd, int *inlines_fd, int *code_seen_fd)
{
	*processes_fd = bpf_map__fd(s->skel->maps.v8_processes);
	*seen_fd = bpf_map__fd(s->skel->maps.v8_functions_seen);
	*known_fd = bpf_map__fd(s->skel->maps.v8_known);
	*inlines_fd = bpf_map__fd(s->skel->maps.v8_inlines);
	*code_seen_fd = bpf_map__fd(s->skel->maps.v8_code_seen);
}

void bpf_sampler_python_fds(const struct bpf_sampler *s, int *processes_fd, int *offsets_fd,
			    int *seen_fd, int *known_fd)
{
	*processes_fd = bpf_map__fd(s->skel->maps.python_processes);
	*offsets_fd = bpf_map__fd(s->skel->maps.python_offsets);
	*seen_fd = bpf_map__fd(s->skel->maps.python_code_seen);
	*known_fd = bpf_map__fd(s->skel->maps.python_known);
}

/* The sum over every CPU of the one element of a per-CPU array whose value
 * is size bytes of __u64 counts (summed as words) into sum: 0, or -errno. */
static int sum_percpu_counts(const struct bpf_sampler *s, const struct bpf_map *map, void *sum,
			     size_t size)
{
	size_t words = size / sizeof(__u64);
	__u64 *all = calloc((size_t)s->nr_possible, size), *to = sum;
	__u32 zero = 0;
	int ret;

	memset(sum, 0, size);
	if (!all)
		return -ENOMEM;
	if (!bpf_map_lookup_elem(bpf_map__fd(map), &zero, all)) {
		for (size_t cpu = 0; cpu < (size_t)s->nr_possible; cpu++)
			for (size_t i = 0; i < words; i++)
				to[i] += all[cpu * words + i];
		ret = 0;
	} else {
		ret = -errno;
	}
	free(all);
	return ret;
}

bool bpf_sampler_follows_none(const struct bpf_sampler *s)
{
	int fd = bpf_map__fd(s->skel->maps.target_tgids);
	__u32 key, *prev = NULL;
	__u8 v;

	if (!s->follows_forks)
		return false;
	/* processes that exited stay, marked, until they are freed */
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (!bpf_map_lookup_elem(fd, &key, &v) && v != RT_TARGET_EXITED)
			return false;
		prev = &key;
	}
	return errno == ENOENT;
}

bool bpf_sampler_has_process(const struct bpf_sampler *s, uint32_t tgid)
{
	__u8 v;

	return !(s->skel->rodata->filter_flags & RT_FILTER_TGID) ||
	       !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.target_tgids), &tgid, &v);
}

int bpf_sampler_unwind_counters(const struct bpf_sampler *s, struct rt_unwind_counters *sum)
{
	memset(sum, 0, sizeof(*sum));
	if (!s || !s->unwind_ehframe)
		return -ENOENT;
	return sum_percpu_counts(s, s->skel->maps.unwind_counters, sum, sizeof(*sum));
}

int bpf_sampler_offcpu_counters(const struct bpf_sampler *s, struct rt_offcpu_counters *sum,
				uint64_t *asleep)
{
	int fd = bpf_map__fd(s->skel->maps.offcpu_pending);
	__u32 key, next;
	void *prev = NULL;
	int ret;

	memset(sum, 0, sizeof(*sum));
	*asleep = 0;
	if (!s->offcpu)
		return -ENOENT;
	ret = sum_percpu_counts(s, s->skel->maps.offcpu_counters, sum, sizeof(*sum));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		(*asleep)++;
		key = next;
		prev = &key;
	}
	return ret;
}

void bpf_sampler_scope_filter(const struct bpf_sampler *s, struct sampler_scope_filter *out)
{
	const struct sampler_bpf *k = s->skel;

	*out = (struct sampler_scope_filter){
		.flags = k->rodata->filter_flags,
		.cgroup_exact = k->rodata->cgroup_exact,
		.cgroup_id = k->rodata->target_cgroup_id,
		.cpu_filter_fd = bpf_map__fd(k->maps.cpu_filter),
		.tgids_fd = bpf_map__fd(k->maps.target_tgids),
		.tids_fd = bpf_map__fd(k->maps.target_tids),
		.cgroup_fd = bpf_map__fd(k->maps.target_cgroup),
	};
}
