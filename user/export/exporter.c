/* SPDX-License-Identifier: GPL-2.0-only */
/* exporter.c: what ringtrace export serves: the in-kernel aggregation of CPU
 * time per cgroup and comm and of run-queue latency, rendered as metrics
 * (cgroup ids named by path). */
#include "export/exporter.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "capture/aggregator.h"
#include "capture/bpf_stats.h"
#include "export/build_info.h"
#include "export/metrics.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "sys/cgroup.h"
#include "sys/process_stats.h"

#define MAX_PROGRAMS 4
/* New cgroups named by one walk of the tree, at most. */
#define NEW_CGROUPS_BATCH 4096

struct exporter {
	struct aggregator *aggregator;
	unsigned int top_comms;
	struct container_names *names; /* or NULL */
	uint32_t (*sampler_pid)(void *ctx); /* or NULL */
	bool (*sampler_counts)(void *ctx, struct sampler_counts *c); /* or NULL */
	void *sampler_ctx;
	uint64_t cgroup_grace_ms;
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
	e->names = cfg->names;
	e->sampler_pid = cfg->sampler_pid;
	e->sampler_counts = cfg->sampler_counts;
	e->sampler_ctx = cfg->sampler_ctx;
	e->cgroup_grace_ms = (uint64_t)cfg->cgroup_grace_s * 1000;
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

/* CPU time rows, labels malloc'd; cgroups to drop. */
struct rows {
	struct metrics_cpu_row *rows;
	size_t nr, cap;
	struct exporter *e;
	uint64_t now_ms;
	uint64_t *gone; /* cgroups gone for longer than the grace period */
	size_t nr_gone, cap_gone;
};

static int add_row(struct rows *r, const char *label, const struct rt_cpu_time *t)
{
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct metrics_cpu_row *grown = realloc(r->rows, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->rows = grown;
		r->cap = cap;
	}
	r->rows[r->nr].label = strdup(label);
	if (!r->rows[r->nr].label)
		return -ENOMEM;
	r->rows[r->nr].samples = t->samples;
	r->rows[r->nr].ns = t->ns;
	r->nr++;
	return 0;
}

static int add_cgroup_row(void *ctx, uint64_t id, const struct rt_cpu_time *t)
{
	struct rows *r = ctx;
	char buf[64];
	const char *name = cgroup_names_get(&r->e->cgroups, id, buf, sizeof(buf));

	if (!cgroup_names_gone_for(&r->e->cgroups, id, r->now_ms, r->e->cgroup_grace_ms))
		return add_row(r, name, t);
	/* gone long enough: its series end (dropped once the map is read) */
	if (r->nr_gone == r->cap_gone) {
		size_t cap = r->cap_gone ? r->cap_gone * 2 : 16;
		uint64_t *grown = realloc(r->gone, cap * sizeof(*grown));

		if (!grown)
			return 0; /* dropped at a later scrape */
		r->gone = grown;
		r->cap_gone = cap;
	}
	r->gone[r->nr_gone++] = id;
	return 0;
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
	free(r->gone);
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

int exporter_render(struct exporter *e, struct byte_buffer *out, bool process)
{
	struct metrics_snapshot m = {
		.version = RINGTRACE_VERSION, .build = build_info(), .transport = "map",
	};
	struct rows cgroups = { .e = e, .now_ms = (uint64_t)(monotonic_seconds() * 1e3) }, comms = { 0 };
	struct process_stats self;
	struct symtab_cache_counts symbol_cache;
	struct capture_cpu_counts *cpus = calloc(CPU_SETSIZE, sizeof(*cpus));
	struct bpf_program_runs runs[MAX_PROGRAMS];
	struct aggregator_evicted cgroups_evicted, comms_evicted;
	struct metrics_map_evictions evictions[2];
	uint64_t names_budget_ns = EXPORTER_NAMES_BUDGET_NS;
	int ret = -ENOMEM;

	pthread_mutex_lock(&e->lock);
	/* a cgroup created since the last scrape is found by one more walk */
	cgroup_names_rescan_allowed(&e->cgroups);
	if (!cpus ||
	    (ret = aggregator_each_cgroup(e->aggregator, add_cgroup_row, &cgroups,
					  &cgroups_evicted)) ||
	    (ret = aggregator_each_comm(e->aggregator, add_comm_row, &comms, &comms_evicted)))
		goto out;
	for (size_t i = 0; i < cgroups.nr_gone; i++) {
		aggregator_forget_cgroup(e->aggregator, cgroups.gone[i]);
		cgroup_names_forget(&e->cgroups, cgroups.gone[i]);
	}
	m.cgroups_evicted = (struct metrics_cpu_row){ NULL, cgroups_evicted.time.samples,
						      cgroups_evicted.time.ns };
	m.comms_evicted = (struct metrics_cpu_row){ NULL, comms_evicted.time.samples,
						    comms_evicted.time.ns };
	evictions[0] = (struct metrics_map_evictions){ "cgroup", cgroups_evicted.keys };
	evictions[1] = (struct metrics_map_evictions){ "comm", comms_evicted.keys };
	m.evictions = evictions;
	m.nr_evictions = 2;
	m.top_comms = e->top_comms;
	m.names = e->names;
	m.names_budget_ns = &names_budget_ns;
	m.cgroups = cgroups.rows;
	m.nr_cgroups = cgroups.nr;
	m.comms = comms.rows;
	m.nr_comms = comms.nr;
	m.cpus = cpus;
	m.nr_cpus = aggregator_cpu_counts(e->aggregator, cpus, CPU_SETSIZE);
	m.bpf_stats = bpf_stats_enabled();
	m.programs = runs;
	exporter_read_aggregator(e->aggregator, &m, runs, MAX_PROGRAMS);
	if (process && !process_stats_read(&self))
		m.process = &self;
	if (e->sampler_pid)
		m.sampler = !process_cpu_and_memory(e->sampler_pid(e->sampler_ctx),
						    &m.sampler_cpu_ns, &m.sampler_resident_bytes);
	if (e->sampler_counts)
		m.sampler_counted = e->sampler_counts(e->sampler_ctx, &m.sampler_counts);
	if (e->sampler_pid) {
		symtab_cache_counts(&symbol_cache);
		m.symbol_cache = &symbol_cache;
	}
	ret = metrics_render(&m, out);
out:
	pthread_mutex_unlock(&e->lock);
	free_rows(&cgroups);
	free_rows(&comms);
	free(cpus);
	return ret;
}

int exporter_new_cgroups_fd(struct exporter *e)
{
	return aggregator_new_cgroups_fd(e->aggregator);
}

struct new_ids {
	uint64_t ids[NEW_CGROUPS_BATCH];
	size_t nr;
};

static void note_new_cgroup(void *ctx, uint64_t id)
{
	struct new_ids *n = ctx;

	if (n->nr < NEW_CGROUPS_BATCH)
		n->ids[n->nr++] = id;
}

void exporter_name_new_cgroups(struct exporter *e)
{
	struct new_ids *n = calloc(1, sizeof(*n));

	if (!n)
		return;
	aggregator_new_cgroups(e->aggregator, note_new_cgroup, n);
	if (n->nr) {
		pthread_mutex_lock(&e->lock);
		cgroup_names_learn(&e->cgroups, n->ids, n->nr);
		pthread_mutex_unlock(&e->lock);
	}
	free(n);
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
