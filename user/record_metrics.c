/* record_metrics.c: what record --metrics serves while recording: CPU time per
 * cgroup and per comm summed from the very samples the drain writes, and the
 * counts, ring occupancy and run-queue histogram the session hands in. */
#include "record_metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "hash_map.h"

#define COMM_LEN 16
#define MAX_CPUS 4096

struct cgroup_time {
	uint64_t id;
	char *path; /* named at the first render that sees it */
	uint64_t samples, ns;
};

struct cgroup_name {
	uint64_t id;
	char *path;
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
	struct hash_map names;   /* cgroup id -> cgroup_name, from the cgroup tree */
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
	hash_map_init(&rm->names, hash_u64_key, equal_u64_key);
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

static void add_name(uint64_t id, const char *relative, void *ctx)
{
	struct record_metrics *rm = ctx;
	struct cgroup_name *n;

	if (hash_map_get(&rm->names, &id) || !(n = calloc(1, sizeof(*n))))
		return;
	n->id = id;
	n->path = strdup(relative);
	if (!n->path || hash_map_put(&rm->names, &n->id, n)) {
		free(n->path);
		free(n);
	}
}

struct naming {
	struct record_metrics *rm;
	bool walked;
};

/* Names each cgroup seen, walking the tree again for one created since. */
static void name_cgroup(void *value, void *ctx)
{
	struct cgroup_time *g = value;
	struct naming *n = ctx;
	struct cgroup_name *name;
	char buf[64];

	if (g->path)
		return;
	name = hash_map_get(&n->rm->names, &g->id);
	if (!name && !n->walked) {
		n->walked = true;
		cgroup_walk(add_name, n->rm);
		name = hash_map_get(&n->rm->names, &g->id);
	}
	if (!name)
		snprintf(buf, sizeof(buf), "unknown_cgroup_id:%llu", (unsigned long long)g->id);
	g->path = strdup(name ? name->path : buf);
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

static int by_ns_desc(const void *a, const void *b)
{
	const struct metrics_cpu_row *x = a, *y = b;

	return x->ns == y->ns ? strcmp(x->label, y->label) : x->ns > y->ns ? -1 : 1;
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
	{
		struct naming naming = { rm, false };

		hash_map_each(&rm->cgroups, name_cgroup, &naming);
	}
	hash_map_each(&rm->cgroups, collect_cgroup, &cg);
	hash_map_each(&rm->comms, collect_comm, &co);
	if (co.nr > rm->top_comms) {
		struct metrics_cpu_row other = { "other", 0, 0 };

		qsort(co.rows, co.nr, sizeof(*co.rows), by_ns_desc);
		for (size_t i = rm->top_comms; i < co.nr; i++) {
			other.samples += co.rows[i].samples;
			other.ns += co.rows[i].ns;
		}
		co.nr = rm->top_comms;
		co.rows[co.nr++] = other;
	}
	m.cgroups = cg.rows;
	m.nr_cgroups = cg.nr;
	m.comms = co.rows;
	m.nr_comms = co.nr;
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

static void free_name(void *value, void *ctx)
{
	struct cgroup_name *n = value;

	(void)ctx;
	free(n->path);
	free(n);
}

void record_metrics_free(struct record_metrics *rm)
{
	if (!rm)
		return;
	hash_map_each(&rm->cgroups, free_cgroup, NULL);
	hash_map_each(&rm->comms, free_comm, NULL);
	hash_map_each(&rm->threads, free_thread, NULL);
	hash_map_each(&rm->names, free_name, NULL);
	hash_map_free(&rm->names);
	hash_map_free(&rm->cgroups);
	hash_map_free(&rm->comms);
	hash_map_free(&rm->threads);
	pthread_mutex_destroy(&rm->lock);
	free(rm);
}
