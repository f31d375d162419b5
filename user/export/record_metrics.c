/* record_metrics.c: what record --metrics serves while recording: CPU time per
 * cgroup and per comm summed from the very samples the drain writes, and the
 * counts, ring occupancy and run-queue histogram the session hands in. */
#include "export/record_metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/cgroup.h"
#include "lib/hash_map.h"

#define COMM_LEN 16
#define MAX_CPUS 4096

struct cgroup_time {
	uint64_t id;
	char *path; /* named at the first render that sees it */
	uint64_t samples, ns;
};

struct thread_comm {
	uint32_t tid;
	char comm[COMM_LEN + 1];
};

struct comm_time {
	char *comm;
	uint64_t samples, ns;
};

struct record_metrics {
	pthread_mutex_t lock;
	struct hash_map cgroups; /* id -> cgroup_time */
	struct hash_map threads; /* tid -> thread_comm */
	struct hash_map comms;   /* comm -> comm_time */
	struct cgroup_names names;
	unsigned int top_comms;
	struct record_metrics_source src;
};

struct record_metrics *record_metrics_create(unsigned int top_comms,
					     const struct record_metrics_source *src)
{
	struct record_metrics *rm = calloc(1, sizeof(*rm));

	if (!rm)
		return NULL;
	pthread_mutex_init(&rm->lock, NULL);
	hash_map_init(&rm->cgroups, hash_u64_key, equal_u64_key);
	hash_map_init(&rm->threads, hash_u32_key, equal_u32_key);
	hash_map_init(&rm->comms, hash_string, equal_string);
	cgroup_names_init(&rm->names);
	rm->top_comms = top_comms;
	rm->src = *src;
	return rm;
}

void record_metrics_comm(struct record_metrics *rm, uint32_t tid, const char *comm)
{
	struct thread_comm *t;

	pthread_mutex_lock(&rm->lock);
	t = hash_map_get(&rm->threads, &tid);
	if (!t && (t = calloc(1, sizeof(*t)))) {
		t->tid = tid;
		if (hash_map_put(&rm->threads, &t->tid, t)) {
			free(t);
			t = NULL;
		}
	}
	if (t)
		strncpy(t->comm, comm, COMM_LEN);
	pthread_mutex_unlock(&rm->lock);
}

void record_metrics_fork(struct record_metrics *rm, uint32_t parent_tid, uint32_t tid)
{
	struct thread_comm *parent;
	char comm[COMM_LEN + 1] = { 0 };

	pthread_mutex_lock(&rm->lock);
	parent = hash_map_get(&rm->threads, &parent_tid);
	if (parent)
		memcpy(comm, parent->comm, COMM_LEN);
	pthread_mutex_unlock(&rm->lock);
	if (comm[0])
		record_metrics_comm(rm, tid, comm);
}

static void add_comm_time(struct record_metrics *rm, const char *comm, uint64_t period)
{
	struct comm_time *c = hash_map_get(&rm->comms, comm);

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c || !(c->comm = strdup(comm))) {
			free(c);
			return;
		}
		if (hash_map_put(&rm->comms, c->comm, c)) {
			free(c->comm);
			free(c);
			return;
		}
	}
	c->samples++;
	c->ns += period;
}

void record_metrics_sample(struct record_metrics *rm, uint32_t tid, uint64_t cgroup,
			   uint64_t period)
{
	struct cgroup_time *g;
	struct thread_comm *t;

	/* the idle task is not on-CPU work, as in ringtrace export */
	if (!tid)
		return;
	pthread_mutex_lock(&rm->lock);
	g = hash_map_get(&rm->cgroups, &cgroup);
	if (!g && (g = calloc(1, sizeof(*g)))) {
		g->id = cgroup;
		if (hash_map_put(&rm->cgroups, &g->id, g)) {
			free(g);
			g = NULL;
		}
	}
	if (g) {
		g->samples++;
		g->ns += period;
	}
	t = hash_map_get(&rm->threads, &tid);
	add_comm_time(rm, t && t->comm[0] ? t->comm : "unknown", period);
	pthread_mutex_unlock(&rm->lock);
}

struct rows {
	struct metrics_cpu_row *rows;
	size_t nr;
};

/* Names each cgroup seen the first time it is rendered. */
static void name_cgroup(void *value, void *ctx)
{
	struct cgroup_time *g = value;
	struct record_metrics *rm = ctx;
	char buf[64];

	if (!g->path)
		g->path = strdup(cgroup_names_get(&rm->names, g->id, buf, sizeof(buf)));
}

static void collect_cgroup(void *value, void *ctx)
{
	struct cgroup_time *g = value;
	struct rows *r = ctx;

	if (g->path)
		r->rows[r->nr++] = (struct metrics_cpu_row){ g->path, g->samples, g->ns };
}

static void collect_comm(void *value, void *ctx)
{
	struct comm_time *c = value;
	struct rows *r = ctx;

	r->rows[r->nr++] = (struct metrics_cpu_row){ c->comm, c->samples, c->ns };
}

int record_metrics_render(void *ctx, struct byte_buffer *out)
{
	struct record_metrics *rm = ctx;
	struct metrics_snapshot m = { .version = RINGTRACE_VERSION, .transport = rm->src.transport };
	struct metrics_cpu_counts *cpus = calloc(MAX_CPUS, sizeof(*cpus));
	struct metrics_ring *rings = calloc(2 * MAX_CPUS, sizeof(*rings));
	struct rows cg = { 0 }, co = { 0 };
	int ret = -1;

	pthread_mutex_lock(&rm->lock);
	cg.rows = calloc(rm->cgroups.len + 1, sizeof(*cg.rows));
	co.rows = calloc(rm->comms.len + 1, sizeof(*co.rows));
	if (!cg.rows || !co.rows || !cpus || !rings)
		goto out;
	/* a cgroup created since the last scrape is found by one more walk */
	cgroup_names_rescan_allowed(&rm->names);
	hash_map_each(&rm->cgroups, name_cgroup, rm);
	hash_map_each(&rm->cgroups, collect_cgroup, &cg);
	hash_map_each(&rm->comms, collect_comm, &co);
	m.cgroups = cg.rows;
	m.nr_cgroups = cg.nr;
	m.comms = co.rows;
	m.nr_comms = co.nr;
	m.top_comms = rm->top_comms;
	m.cpus = cpus;
	m.nr_cpus = rm->src.cpu_counts(rm->src.ctx, cpus, MAX_CPUS);
	m.rings = rings;
	m.nr_rings = rm->src.rings(rm->src.ctx, rings, 2 * MAX_CPUS);
	rm->src.extra(rm->src.ctx, &m);
	/* rendering copies the labels: the lock covers the strings it reads */
	ret = metrics_render(&m, out);
out:
	pthread_mutex_unlock(&rm->lock);
	free(cg.rows);
	free(co.rows);
	free(cpus);
	free(rings);
	return ret;
}

static void free_cgroup(void *value, void *ctx)
{
	struct cgroup_time *g = value;

	(void)ctx;
	free(g->path);
	free(g);
}

static void free_comm(void *value, void *ctx)
{
	struct comm_time *c = value;

	(void)ctx;
	free(c->comm);
	free(c);
}

static void free_thread(void *value, void *ctx)
{
	(void)ctx;
	free(value);
}

void record_metrics_free(struct record_metrics *rm)
{
	if (!rm)
		return;
	hash_map_each(&rm->cgroups, free_cgroup, NULL);
	hash_map_each(&rm->comms, free_comm, NULL);
	hash_map_each(&rm->threads, free_thread, NULL);
	cgroup_names_free(&rm->names);
	hash_map_free(&rm->cgroups);
	hash_map_free(&rm->comms);
	hash_map_free(&rm->threads);
	pthread_mutex_destroy(&rm->lock);
	free(rm);
}
