/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_sink.c: record --metrics: a sink of the recording that serves its
 * metrics while it records: CPU time per cgroup and comm summed from the very
 * samples drained, its counts and ring fill, and the run-queue histogram. */
#include "export/metrics_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/aggregator.h"
#include "capture/bpf_stats.h"
#include "export/build_info.h"
#include "export/exporter.h"
#include "export/metrics.h"
#include "export/metrics_server.h"
#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "sample_record.h"
#include "sys/cgroup.h"
#include "sys/process_stats.h"

#define COMM_LEN 16
#define MAX_CPUS 4096
#define MAX_PROGRAMS 16

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

struct metrics_sink {
	struct record_sink base;
	pthread_mutex_t lock;
	struct hash_map cgroups; /* id -> cgroup_time */
	struct hash_map threads; /* tid -> thread_comm */
	struct hash_map comms;   /* comm -> comm_time */
	struct cgroup_names names;
	unsigned int top_comms;
	struct record_source src;
	const char *listen;
	int listen_fd;                 /* bound at creation, until the server takes it */
	struct aggregator *runq;       /* the run-queue histogram */
	struct metrics_server *server;
};

static struct metrics_sink *metrics_sink_of(struct record_sink *s)
{
	return (struct metrics_sink *)s;
}

static void note_comm(struct metrics_sink *rm, uint32_t tid, const char *comm)
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

static void note_fork(struct metrics_sink *rm, uint32_t parent_tid, uint32_t tid)
{
	struct thread_comm *parent;
	char comm[COMM_LEN + 1] = { 0 };

	pthread_mutex_lock(&rm->lock);
	parent = hash_map_get(&rm->threads, &parent_tid);
	if (parent)
		memcpy(comm, parent->comm, COMM_LEN);
	pthread_mutex_unlock(&rm->lock);
	if (comm[0])
		note_comm(rm, tid, comm);
}

static void add_comm_time(struct metrics_sink *rm, const char *comm, uint64_t period)
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

static void note_sample(struct metrics_sink *rm, uint32_t tid, uint64_t cgroup, uint64_t period)
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
	struct metrics_sink *rm = ctx;
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

static int render(void *ctx, struct byte_buffer *out)
{
	struct metrics_sink *rm = ctx;
	struct metrics_snapshot m = {
		.version = RINGTRACE_VERSION, .build = build_info(), .transport = rm->src.transport,
	};
	struct process_stats self;
	struct capture_cpu_counts *cpus = calloc(MAX_CPUS, sizeof(*cpus));
	struct capture_ring_fill *rings = calloc(2 * MAX_CPUS, sizeof(*rings));
	struct bpf_program_runs runs[MAX_PROGRAMS];
	struct rt_unwind_counters unwind;
	struct rows cg = { 0 }, co = { 0 };
	int ret = -ENOMEM;

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
	m.bpf_stats = bpf_stats_enabled();
	m.programs = runs;
	if (m.bpf_stats)
		m.nr_programs = rm->src.programs(rm->src.ctx, runs, MAX_PROGRAMS);
	if (rm->src.unwind && !rm->src.unwind(rm->src.ctx, &unwind))
		m.unwind = &unwind;
	exporter_read_aggregator(rm->runq, &m, runs, MAX_PROGRAMS);
	if (!process_stats_read(&self))
		m.process = &self;
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

/* --metrics: the sample's CPU time, to its thread's comm and its cgroup
 * (--off-cpu's samples are left out). */
static int metrics_sample(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	struct metrics_sink *rm = metrics_sink_of(s);
	struct rt_sample_head head;
	uint64_t cgroup = 0;

	(void)cpu;
	if (((const struct perf_event_header *)rec)->type != PERF_RECORD_SAMPLE ||
	    size < sizeof(head) + (rm->src.samples_carry_cgroup ? sizeof(cgroup) : 0))
		return 0;
	memcpy(&head, rec, sizeof(head));
	/* time off CPU is no CPU time */
	if (rm->src.offcpu_id && head.id == rm->src.offcpu_id)
		return 0;
	if (rm->src.samples_carry_cgroup)
		memcpy(&cgroup, (const uint8_t *)rec + size - sizeof(cgroup), sizeof(cgroup));
	note_sample(rm, head.tid, cgroup, head.period);
	return 0;
}

/* The comm of each thread, from COMM records, and a new thread's from its
 * parent's (FORK records). */
static int metrics_sideband(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	struct metrics_sink *rm = metrics_sink_of(s);
	uint32_t type = ((const struct perf_event_header *)rec)->type;
	struct perf_comm c;
	struct perf_task t;

	(void)cpu;
	(void)size;
	if (type == PERF_RECORD_COMM && !perf_comm_decode(rec, rm->src.sample_id_type, &c))
		note_comm(rm, c.tid, c.comm);
	else if (type == PERF_RECORD_FORK && !perf_task_decode(rec, &t))
		note_fork(rm, t.ptid, t.tid);
	return 0;
}

/* The comms of what existed at the start. */
static void metrics_initial_sideband(struct record_sink *s, const void *records, size_t len)
{
	const uint8_t *p = records, *end = p + len;

	while (p + sizeof(struct perf_event_header) <= end) {
		const struct perf_event_header *h = (const struct perf_event_header *)p;

		if (h->size < sizeof(*h) || h->size > (size_t)(end - p))
			break;
		metrics_sideband(s, -1, h, h->size);
		p += h->size;
	}
}

/* Before the capabilities are dropped: the run-queue histogram's programs. */
static int metrics_open(struct record_sink *s, const struct record_source *src, char *err,
			size_t errlen)
{
	struct metrics_sink *rm = metrics_sink_of(s);
	struct aggregator_config runq = { .cgroup_fd = -1, .runq_only = true };

	rm->src = *src;
	rm->runq = aggregator_start(&runq, err, errlen);
	return rm->runq ? 0 : -EIO; /* what failed is in err */
}

static int metrics_start(struct record_sink *s, char *err, size_t errlen)
{
	struct metrics_sink *rm = metrics_sink_of(s);

	rm->server = metrics_server_start(rm->listen_fd, render, rm, NULL, NULL, err, errlen);
	rm->listen_fd = -1; /* the server's, or closed */
	if (!rm->server)
		return -EIO; /* what failed is in err */
	rt_info("ringtrace: serving metrics on http://%s/metrics", rm->listen);
	return 0;
}

static int metrics_finish(struct record_sink *s, char *err, size_t errlen)
{
	struct metrics_sink *rm = metrics_sink_of(s);

	(void)err;
	(void)errlen;
	metrics_server_stop(rm->server);
	rm->server = NULL;
	return 0;
}

static void metrics_free(struct record_sink *s)
{
	struct metrics_sink *rm = metrics_sink_of(s);

	if (!rm)
		return;
	metrics_server_stop(rm->server);
	if (rm->listen_fd >= 0)
		close(rm->listen_fd);
	aggregator_stop(rm->runq);
	hash_map_each(&rm->cgroups, free_cgroup, NULL);
	hash_map_each(&rm->comms, free_comm, NULL);
	hash_map_free_all(&rm->threads);
	cgroup_names_free(&rm->names);
	hash_map_free(&rm->cgroups);
	hash_map_free(&rm->comms);
	pthread_mutex_destroy(&rm->lock);
	free(rm);
}

static const struct record_sink_ops metrics_sink_ops = {
	.open = metrics_open,
	.start = metrics_start,
	.sample = metrics_sample,
	.sideband = metrics_sideband,
	.initial_sideband = metrics_initial_sideband,
	.finish = metrics_finish,
	.free = metrics_free,
};

struct record_sink *metrics_sink_create(const char *listen, unsigned int top_comms, char *err,
					size_t errlen)
{
	struct metrics_sink *rm = calloc(1, sizeof(*rm));

	if (!rm) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	/* bound now, before the recording creates or attaches anything, while
	 * the capabilities last (a port below 1024); served once started */
	rm->listen_fd = metrics_listen(listen, err, errlen);
	if (rm->listen_fd < 0) {
		free(rm);
		return NULL;
	}
	rm->base.ops = &metrics_sink_ops;
	pthread_mutex_init(&rm->lock, NULL);
	hash_map_init(&rm->cgroups, hash_u64_key, equal_u64_key);
	hash_map_init(&rm->threads, hash_u32_key, equal_u32_key);
	hash_map_init(&rm->comms, hash_string, equal_string);
	cgroup_names_init(&rm->names);
	rm->top_comms = top_comms;
	rm->listen = listen;
	return &rm->base;
}
