/* exporter.c: the capture behind ringtrace export: loads the aggregating BPF
 * program on a sampling event of every CPU and the run-queue tracepoints, and
 * reads its maps into a metrics snapshot (cgroup ids named by path). */
#include "export/exporter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_stats.h"
#include "sys/cgroup.h"
#include "sys/cpu_list.h"
#include "export_maps.h"
#include "exporter.skel.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "capture/transport.h"

struct exporter {
	struct exporter_bpf *skel;
	struct cpu_list cpus;
	int *event_fds;
	struct bpf_link **links;
	unsigned int nr_links;
	unsigned int top_comms;
	int nr_possible;
	struct cgroup_dir cgroup;
	pthread_mutex_t lock;      /* one render at a time: the cgroup names */
	struct cgroup_names cgroups;
	bool names_ready;
};

static int attach(struct exporter *e, struct bpf_link *link, const char *what, char *err,
		  size_t errlen)
{
	if (!link) {
		int x = errno;

		rt_format(err, errlen, "cannot attach to %s: %s%s", what, strerror(x),
			  transport_privilege_hint(x));
		return -1;
	}
	e->links[e->nr_links++] = link;
	return 0;
}

struct exporter *exporter_start(const struct exporter_config *cfg, char *err, size_t errlen)
{
	struct exporter *e = calloc(1, sizeof(*e));

	if (!e) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	e->cgroup.fd = -1;
	e->top_comms = cfg->top_comms;
	e->nr_possible = libbpf_num_possible_cpus();
	if (cpu_list_online(&e->cpus, err, errlen))
		goto fail;
	if (cfg->cgroup && cgroup_resolve(cfg->cgroup, &e->cgroup, err, errlen))
		goto fail;
	e->event_fds = calloc(e->cpus.nr, sizeof(int));
	e->links = calloc(e->cpus.nr + 3, sizeof(*e->links));
	if (!e->event_fds || !e->links) {
		rt_format(err, errlen, "out of memory");
		goto fail;
	}
	for (unsigned int i = 0; i < e->cpus.nr; i++)
		e->event_fds[i] = -1;
	e->skel = exporter_bpf__open();
	if (!e->skel) {
		rt_format(err, errlen, "cannot open the exporter's BPF program: %s", strerror(errno));
		goto fail;
	}
	e->skel->rodata->filter_cgroup = cfg->cgroup != NULL;
	bpf_program__set_autoload(e->skel->progs.export_sample, !cfg->runq_only);
	if (exporter_bpf__load(e->skel)) {
		int x = errno;

		rt_format(err, errlen, "cannot load the exporter's BPF program: %s%s", strerror(x),
			  transport_privilege_hint(x));
		goto fail;
	}
	if (cfg->cgroup) {
		__u32 key = 0, fd = (__u32)e->cgroup.fd;

		if (bpf_map_update_elem(bpf_map__fd(e->skel->maps.cgroup_filter), &key, &fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot scope to %s: %s", cfg->cgroup, strerror(errno));
			goto fail;
		}
	}
	for (unsigned int i = 0; i < e->cpus.nr && !cfg->runq_only; i++) {
		struct perf_event_attr attr;

		perf_attr_cpu_clock(&attr, &cfg->rate);
		attr.type = cfg->event_type;
		attr.config = cfg->event_config;
		e->event_fds[i] = perf_event_open_fd(&attr, -1, e->cpus.cpus[i], -1, 0);
		if (e->event_fds[i] < 0) {
			rt_format(err, errlen, "cannot open the sampling event on CPU %d: %s%s",
				  e->cpus.cpus[i], strerror(-e->event_fds[i]),
				  transport_privilege_hint(-e->event_fds[i]));
			goto fail;
		}
		if (attach(e, bpf_program__attach_perf_event(e->skel->progs.export_sample, e->event_fds[i]),
			   "the sampling event", err, errlen))
			goto fail;
	}
	if (attach(e, bpf_program__attach(e->skel->progs.export_wakeup), "sched_wakeup", err, errlen) ||
	    attach(e, bpf_program__attach(e->skel->progs.export_wakeup_new), "sched_wakeup_new", err,
		   errlen) ||
	    attach(e, bpf_program__attach(e->skel->progs.export_switch), "sched_switch", err, errlen))
		goto fail;
	cgroup_names_init(&e->cgroups);
	e->names_ready = true;
	return e;
fail:
	exporter_stop(e);
	return NULL;
}

/* Every entry of a hash map of struct rt_cpu_time, as rows; labels malloc'd. */
static struct metrics_cpu_row *read_times(struct exporter *e, int fd, bool by_cgroup, size_t *nr)
{
	struct metrics_cpu_row *rows = NULL;
	size_t cap = 0;
	uint8_t key[RT_EXPORT_COMM_LEN], next[RT_EXPORT_COMM_LEN];
	void *prev = NULL;

	*nr = 0;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		struct rt_cpu_time t;
		char buf[64], comm[RT_EXPORT_COMM_LEN + 1] = { 0 };
		const char *label;

		memcpy(key, next, sizeof(key));
		prev = key;
		if (bpf_map_lookup_elem(fd, key, &t))
			continue;
		if (by_cgroup) {
			uint64_t id;

			memcpy(&id, key, sizeof(id));
			label = cgroup_names_get(&e->cgroups, id, buf, sizeof(buf));
		} else {
			memcpy(comm, key, RT_EXPORT_COMM_LEN);
			label = comm;
		}
		if (*nr == cap) {
			struct metrics_cpu_row *grown = realloc(rows, (cap = cap ? cap * 2 : 64) * sizeof(*rows));

			if (!grown)
				break;
			rows = grown;
		}
		rows[*nr].label = strdup(label);
		if (!rows[*nr].label)
			break;
		rows[*nr].samples = t.samples;
		rows[*nr].ns = t.ns;
		(*nr)++;
	}
	return rows;
}

static void free_times(struct metrics_cpu_row *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free((char *)rows[i].label);
	free(rows);
}

int exporter_render(struct exporter *e, struct byte_buffer *out)
{
	struct metrics_snapshot m = { .version = RINGTRACE_VERSION, .transport = "map" };
	struct metrics_cpu_row *cgroups, *comms;
	struct metrics_cpu_counts *cpus = calloc(e->cpus.nr, sizeof(*cpus));
	struct rt_export_counters *counters = calloc((size_t)e->nr_possible, sizeof(*counters));
	struct metrics_program progs[4];
	__u32 zero = 0;
	int ret = -1;

	pthread_mutex_lock(&e->lock);
	/* a cgroup created since the last scrape is found by one more walk */
	cgroup_names_rescan_allowed(&e->cgroups);
	cgroups = read_times(e, bpf_map__fd(e->skel->maps.cgroup_time), true, &m.nr_cgroups);
	comms = read_times(e, bpf_map__fd(e->skel->maps.comm_time), false, &m.nr_comms);
	if (!cpus || !counters)
		goto out;
	m.top_comms = e->top_comms;
	m.cgroups = cgroups;
	m.comms = comms;
	if (!bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.counters), &zero, counters))
		for (unsigned int i = 0; i < e->cpus.nr; i++) {
			int c = e->cpus.cpus[i];

			cpus[i].cpu = c;
			if (c < e->nr_possible) {
				cpus[i].produced = counters[c].produced;
				cpus[i].lost = counters[c].lost;
			}
		}
	m.cpus = cpus;
	m.nr_cpus = e->cpus.nr;
	exporter_read_runq(e, &m);
	m.bpf_stats = bpf_stats_enabled();
	if (m.bpf_stats)
		m.nr_programs = bpf_stats_read(e->skel->obj, progs, 4);
	m.programs = progs;
	ret = metrics_render(&m, out);
out:
	pthread_mutex_unlock(&e->lock);
	free_times(cgroups, m.nr_cgroups);
	free_times(comms, m.nr_comms);
	free(cpus);
	free(counters);
	return ret;
}

int exporter_read_runq(struct exporter *e, struct metrics_snapshot *m)
{
	struct rt_runq_hist *hists = calloc((size_t)e->nr_possible, sizeof(*hists));
	__u32 zero = 0;
	int ret = -1;

	if (hists && !bpf_map_lookup_elem(bpf_map__fd(e->skel->maps.runq_hist), &zero, hists)) {
		for (int c = 0; c < e->nr_possible; c++) {
			for (int b = 0; b < RT_RUNQ_BUCKETS && b < METRICS_RUNQ_BUCKETS; b++)
				m->runq_buckets[b] += hists[c].buckets[b];
			m->runq_count += hists[c].count;
			m->runq_sum_ns += hists[c].sum_ns;
		}
		ret = 0;
	}
	free(hists);
	return ret;
}

size_t exporter_program_stats(struct exporter *e, struct metrics_program *out, size_t max)
{
	return bpf_stats_read(e->skel->obj, out, max);
}

void exporter_stop(struct exporter *e)
{
	if (!e)
		return;
	for (unsigned int i = 0; i < e->nr_links; i++)
		bpf_link__destroy(e->links[i]);
	for (unsigned int i = 0; e->event_fds && i < e->cpus.nr; i++)
		if (e->event_fds[i] >= 0)
			close(e->event_fds[i]);
	exporter_bpf__destroy(e->skel);
	cgroup_close(&e->cgroup);
	if (e->names_ready)
		cgroup_names_free(&e->cgroups);
	cpu_list_free(&e->cpus);
	free(e->event_fds);
	free(e->links);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
