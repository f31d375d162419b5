/* SPDX-License-Identifier: GPL-2.0-only */
/* exporter.c: what ringtrace export serves: the in-kernel aggregation of CPU
 * time per cgroup and comm and of run-queue latency, rendered as metrics
 * (cgroup ids named by path). */
#include "export/exporter.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "capture/aggregator.h"
#include "capture/bpf_stats.h"
#include "export/metrics.h"
#include "lib/log.h"
#include "sys/cgroup.h"

#define MAX_PROGRAMS 4

struct exporter {
	struct aggregator *aggregator;
	unsigned int top_comms;
	struct cgroup_dir cgroup;
	pthread_mutex_t lock;      /* one render at a time: the cgroup names */
	struct cgroup_names cgroups;
};

struct exporter *exporter_start(const struct exporter_config *cfg, char *err, size_t errlen)
{
	struct exporter *e = calloc(1, sizeof(*e));
	struct aggregator_config acfg = {
		.event_type = cfg->event_type,
		.event_config = cfg->event_config,
		.rate = cfg->rate,
		.cgroup_fd = -1,
	};

	if (!e) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	e->cgroup.fd = -1;
	e->top_comms = cfg->top_comms;
	pthread_mutex_init(&e->lock, NULL);
	cgroup_names_init(&e->cgroups);
	if (cfg->cgroup) {
		if (cgroup_resolve(cfg->cgroup, &e->cgroup, err, errlen))
			goto fail;
		acfg.cgroup_fd = e->cgroup.fd;
	}
	e->aggregator = aggregator_start(&acfg, err, errlen);
	if (!e->aggregator)
		goto fail;
	return e;
fail:
	exporter_stop(e);
	return NULL;
}

/* CPU time rows, labels malloc'd. */
struct rows {
	struct metrics_cpu_row *rows;
	size_t nr, cap;
	struct cgroup_names *names;
};

static int add_row(struct rows *r, const char *label, const struct rt_cpu_time *t)
{
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct metrics_cpu_row *grown = realloc(r->rows, cap * sizeof(*grown));

		if (!grown)
			return -1;
		r->rows = grown;
		r->cap = cap;
	}
	r->rows[r->nr].label = strdup(label);
	if (!r->rows[r->nr].label)
		return -1;
	r->rows[r->nr].samples = t->samples;
	r->rows[r->nr].ns = t->ns;
	r->nr++;
	return 0;
}

static int add_cgroup_row(void *ctx, uint64_t id, const struct rt_cpu_time *t)
{
	struct rows *r = ctx;
	char buf[64];

	return add_row(r, cgroup_names_get(r->names, id, buf, sizeof(buf)), t);
}

static int add_comm_row(void *ctx, const char *comm, const struct rt_cpu_time *t)
{
	return add_row(ctx, comm, t);
}

static void free_rows(struct rows *r)
{
	for (size_t i = 0; i < r->nr; i++)
		free((char *)r->rows[i].label);
	free(r->rows);
}

void exporter_read_aggregator(struct aggregator *a, struct metrics_snapshot *m,
			      struct bpf_program_runs *runs, size_t max_runs)
{
	struct runq_histogram h;

	if (!aggregator_runq(a, &h)) {
		for (int b = 0; b < RT_RUNQ_BUCKETS && b < METRICS_RUNQ_BUCKETS; b++)
			m->runq_buckets[b] += h.buckets[b];
		m->runq_count += h.count;
		m->runq_sum_ns += h.sum_ns;
	}
	if (m->bpf_stats)
		m->nr_programs += aggregator_program_runs(a, runs + m->nr_programs,
							  max_runs - m->nr_programs);
}

int exporter_render(struct exporter *e, struct byte_buffer *out)
{
	struct metrics_snapshot m = { .version = RINGTRACE_VERSION, .transport = "map" };
	struct rows cgroups = { .names = &e->cgroups }, comms = { 0 };
	struct capture_cpu_counts *cpus = calloc(CPU_SETSIZE, sizeof(*cpus));
	struct bpf_program_runs runs[MAX_PROGRAMS];
	struct aggregator_evicted cgroups_evicted, comms_evicted;
	struct metrics_map_evictions evictions[2];
	int ret = -1;

	pthread_mutex_lock(&e->lock);
	/* a cgroup created since the last scrape is found by one more walk */
	cgroup_names_rescan_allowed(&e->cgroups);
	if (!cpus ||
	    aggregator_each_cgroup(e->aggregator, add_cgroup_row, &cgroups, &cgroups_evicted) ||
	    aggregator_each_comm(e->aggregator, add_comm_row, &comms, &comms_evicted))
		goto out;
	m.cgroups_evicted = (struct metrics_cpu_row){ NULL, cgroups_evicted.time.samples,
						      cgroups_evicted.time.ns };
	m.comms_evicted = (struct metrics_cpu_row){ NULL, comms_evicted.time.samples,
						    comms_evicted.time.ns };
	evictions[0] = (struct metrics_map_evictions){ "cgroup", cgroups_evicted.keys };
	evictions[1] = (struct metrics_map_evictions){ "comm", comms_evicted.keys };
	m.evictions = evictions;
	m.nr_evictions = 2;
	m.top_comms = e->top_comms;
	m.cgroups = cgroups.rows;
	m.nr_cgroups = cgroups.nr;
	m.comms = comms.rows;
	m.nr_comms = comms.nr;
	m.cpus = cpus;
	m.nr_cpus = aggregator_cpu_counts(e->aggregator, cpus, CPU_SETSIZE);
	m.bpf_stats = bpf_stats_enabled();
	m.programs = runs;
	exporter_read_aggregator(e->aggregator, &m, runs, MAX_PROGRAMS);
	ret = metrics_render(&m, out);
out:
	pthread_mutex_unlock(&e->lock);
	free_rows(&cgroups);
	free_rows(&comms);
	free(cpus);
	return ret;
}

void exporter_stop(struct exporter *e)
{
	if (!e)
		return;
	aggregator_stop(e->aggregator);
	cgroup_close(&e->cgroup);
	cgroup_names_free(&e->cgroups);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
