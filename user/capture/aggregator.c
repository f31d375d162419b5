/* SPDX-License-Identifier: GPL-2.0-only */
/* aggregator.c: the BPF program that aggregates in the kernel: CPU time per
 * cgroup and per comm, the run-queue histogram; loaded, attached, maps read. */
#include "capture/aggregator.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_stats.h"
#include "exporter.skel.h"
#include "lib/log.h"
#include "sys/cpu_list.h"
#include "sys/privileges.h"

struct aggregator {
	struct exporter_bpf *skel;
	struct cpu_list cpus;
	int *event_fds;
	struct bpf_link **links;
	unsigned int nr_links;
	int nr_possible;
};

static int attach(struct aggregator *a, struct bpf_link *link, const char *what, char *err,
		  size_t errlen)
{
	if (!link) {
		int x = errno;

		rt_format(err, errlen, "cannot attach to %s: %s%s", what, strerror(x),
			  privileges_hint(x));
		return -1;
	}
	a->links[a->nr_links++] = link;
	return 0;
}

/* The sampling event on every CPU, the aggregating program on each. */
static int attach_sampling(struct aggregator *a, const struct aggregator_config *cfg, char *err,
			   size_t errlen)
{
	for (unsigned int i = 0; i < a->cpus.nr; i++) {
		struct perf_event_attr attr;

		perf_attr_cpu_clock(&attr, &cfg->rate);
		attr.type = cfg->event_type;
		attr.config = cfg->event_config;
		a->event_fds[i] = perf_event_open_fd(&attr, -1, a->cpus.cpus[i], -1, 0);
		if (a->event_fds[i] < 0) {
			rt_format(err, errlen, "cannot open the sampling event on CPU %d: %s%s",
				  a->cpus.cpus[i], strerror(-a->event_fds[i]),
				  privileges_hint(-a->event_fds[i]));
			return -1;
		}
		if (attach(a, bpf_program__attach_perf_event(a->skel->progs.export_sample,
							     a->event_fds[i]),
			   "the sampling event", err, errlen))
			return -1;
	}
	return 0;
}

struct aggregator *aggregator_start(const struct aggregator_config *cfg, char *err,
				    size_t errlen)
{
	struct aggregator *a = calloc(1, sizeof(*a));

	if (!a) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	a->nr_possible = libbpf_num_possible_cpus();
	if (cpu_list_online(&a->cpus, err, errlen))
		goto fail;
	a->event_fds = calloc(a->cpus.nr, sizeof(int));
	a->links = calloc(a->cpus.nr + 3, sizeof(*a->links));
	if (!a->event_fds || !a->links) {
		rt_format(err, errlen, "out of memory");
		goto fail;
	}
	for (unsigned int i = 0; i < a->cpus.nr; i++)
		a->event_fds[i] = -1;
	a->skel = exporter_bpf__open();
	if (!a->skel) {
		rt_format(err, errlen, "cannot open the aggregating BPF program: %s", strerror(errno));
		goto fail;
	}
	a->skel->rodata->filter_cgroup = cfg->cgroup_fd >= 0;
	bpf_program__set_autoload(a->skel->progs.export_sample, !cfg->runq_only);
	if (exporter_bpf__load(a->skel)) {
		int x = errno;

		rt_format(err, errlen, "cannot load the aggregating BPF program: %s%s", strerror(x),
			  privileges_hint(x));
		goto fail;
	}
	if (cfg->cgroup_fd >= 0) {
		__u32 key = 0, fd = (__u32)cfg->cgroup_fd;

		if (bpf_map_update_elem(bpf_map__fd(a->skel->maps.cgroup_filter), &key, &fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot scope to the cgroup: %s", strerror(errno));
			goto fail;
		}
	}
	if (!cfg->runq_only && attach_sampling(a, cfg, err, errlen))
		goto fail;
	if (attach(a, bpf_program__attach(a->skel->progs.export_wakeup), "sched_wakeup", err, errlen) ||
	    attach(a, bpf_program__attach(a->skel->progs.export_wakeup_new), "sched_wakeup_new", err,
		   errlen) ||
	    attach(a, bpf_program__attach(a->skel->progs.export_switch), "sched_switch", err, errlen))
		goto fail;
	return a;
fail:
	aggregator_stop(a);
	return NULL;
}

/* Every entry of a hash map keyed by key_size bytes, valued struct rt_cpu_time. */
static int each_time(int fd, size_t key_size, int (*fn)(void *ctx, const void *key,
							const struct rt_cpu_time *t),
		     void *ctx)
{
	uint8_t key[RT_EXPORT_COMM_LEN], next[RT_EXPORT_COMM_LEN];
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		struct rt_cpu_time t;

		memcpy(key, next, key_size);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, &t))
			continue; /* gone since */
		if (fn(ctx, key, &t))
			return -1;
	}
	return errno == ENOENT ? 0 : -1;
}

struct each_cgroup {
	int (*fn)(void *ctx, uint64_t id, const struct rt_cpu_time *t);
	void *ctx;
};

static int on_cgroup_time(void *ctx, const void *key, const struct rt_cpu_time *t)
{
	struct each_cgroup *e = ctx;
	uint64_t id;

	memcpy(&id, key, sizeof(id));
	return e->fn(e->ctx, id, t);
}

int aggregator_each_cgroup(struct aggregator *a,
			   int (*fn)(void *ctx, uint64_t id, const struct rt_cpu_time *t), void *ctx)
{
	struct each_cgroup e = { fn, ctx };

	return each_time(bpf_map__fd(a->skel->maps.cgroup_time), sizeof(uint64_t), on_cgroup_time,
			 &e);
}

struct each_comm {
	int (*fn)(void *ctx, const char *comm, const struct rt_cpu_time *t);
	void *ctx;
};

static int on_comm_time(void *ctx, const void *key, const struct rt_cpu_time *t)
{
	struct each_comm *e = ctx;
	char comm[RT_EXPORT_COMM_LEN + 1] = { 0 };

	memcpy(comm, key, RT_EXPORT_COMM_LEN);
	return e->fn(e->ctx, comm, t);
}

int aggregator_each_comm(struct aggregator *a,
			 int (*fn)(void *ctx, const char *comm, const struct rt_cpu_time *t),
			 void *ctx)
{
	struct each_comm e = { fn, ctx };

	return each_time(bpf_map__fd(a->skel->maps.comm_time), RT_EXPORT_COMM_LEN, on_comm_time,
			 &e);
}

size_t aggregator_cpu_counts(struct aggregator *a, struct capture_cpu_counts *out, size_t max)
{
	struct rt_export_counters *counters = calloc((size_t)a->nr_possible, sizeof(*counters));
	bool read;
	__u32 zero = 0;
	size_t n = 0;

	read = counters &&
	       !bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.counters), &zero, counters);
	for (unsigned int i = 0; i < a->cpus.nr && n < max; i++, n++) {
		int c = a->cpus.cpus[i];

		out[n] = (struct capture_cpu_counts){ .cpu = c };
		if (read && c < a->nr_possible) {
			out[n].produced = counters[c].produced;
			out[n].lost = counters[c].lost;
		}
	}
	free(counters);
	return n;
}

int aggregator_runq(struct aggregator *a, struct runq_histogram *out)
{
	struct rt_runq_hist *hists = calloc((size_t)a->nr_possible, sizeof(*hists));
	__u32 zero = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (hists && !bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.runq_hist), &zero, hists)) {
		for (int c = 0; c < a->nr_possible; c++) {
			for (int b = 0; b < RT_RUNQ_BUCKETS; b++)
				out->buckets[b] += hists[c].buckets[b];
			out->count += hists[c].count;
			out->sum_ns += hists[c].sum_ns;
		}
		ret = 0;
	}
	free(hists);
	return ret;
}

size_t aggregator_program_runs(struct aggregator *a, struct bpf_program_runs *out, size_t max)
{
	return bpf_stats_read(a->skel->obj, out, max);
}

void aggregator_stop(struct aggregator *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->nr_links; i++)
		bpf_link__destroy(a->links[i]);
	for (unsigned int i = 0; a->event_fds && i < a->cpus.nr; i++)
		if (a->event_fds[i] >= 0)
			close(a->event_fds[i]);
	exporter_bpf__destroy(a->skel);
	cpu_list_free(&a->cpus);
	free(a->event_fds);
	free(a->links);
	free(a);
}
