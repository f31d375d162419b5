/* SPDX-License-Identifier: GPL-2.0-only */
/* aggregator.c: the BPF program that aggregates in the kernel: CPU time per
 * cgroup and per comm, the run-queue histogram; loaded, attached, maps read. */
#include "capture/aggregator.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_stats.h"
#include "aggregator.skel.h"
#include "lib/log.h"
#include "sys/cpu_list.h"
#include "sys/privileges.h"

enum { MAP_CGROUP, MAP_COMM, NR_MAPS };

/* A map's keys and values as last read, and what was evicted from it. */
struct map_dump {
	uint8_t *keys;
	struct rt_cpu_time *values;
	size_t nr, cap;
	struct aggregator_evicted evicted; /* as reported: never decreasing */
	struct aggregator_evicted forgotten; /* keys removed by aggregator_forget_cgroup */
};

struct aggregator {
	struct aggregator_bpf *skel;
	struct cpu_list cpus;
	int *event_fds;
	struct bpf_link **links;
	unsigned int nr_links;
	int nr_possible;
	pthread_mutex_t lock; /* the dumps: one map read at a time */
	struct map_dump dumps[NR_MAPS];
	struct ring_buffer *new_cgroups;
	void (*on_new_cgroup)(void *ctx, uint64_t id);
	void *on_new_cgroup_ctx;
};

static int new_cgroup(void *ctx, void *data, size_t size)
{
	struct aggregator *a = ctx;
	uint64_t id;

	if (size >= sizeof(id) && a->on_new_cgroup) {
		memcpy(&id, data, sizeof(id));
		a->on_new_cgroup(a->on_new_cgroup_ctx, id);
	}
	return 0;
}

static int attach(struct aggregator *a, struct bpf_link *link, const char *what, char *err,
		  size_t errlen)
{
	if (!link) {
		int x = errno;

		rt_format(err, errlen, "cannot attach to %s: %s%s", what, strerror(x),
			  privileges_hint(x));
		return -x;
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
		int r;

		perf_attr_cpu_clock(&attr, &cfg->rate);
		attr.type = cfg->event_type;
		attr.config = cfg->event_config;
		a->event_fds[i] = perf_event_open_fd(&attr, -1, a->cpus.cpus[i], -1, 0);
		if (a->event_fds[i] < 0) {
			rt_format(err, errlen, "cannot open the sampling event on CPU %d: %s%s",
				  a->cpus.cpus[i], strerror(-a->event_fds[i]),
				  privileges_hint(-a->event_fds[i]));
			return a->event_fds[i];
		}
		if ((r = attach(a, bpf_program__attach_perf_event(a->skel->progs.export_sample,
								  a->event_fds[i]),
				"the sampling event", err, errlen)))
			return r;
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
	pthread_mutex_init(&a->lock, NULL);
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
	a->skel = aggregator_bpf__open();
	if (!a->skel) {
		rt_format(err, errlen, "cannot open the aggregating BPF program: %s", strerror(errno));
		goto fail;
	}
	a->skel->rodata->filter_cgroup = cfg->cgroup_fd >= 0;
	bpf_program__set_autoload(a->skel->progs.export_sample, !cfg->runq_only);
	if (aggregator_bpf__load(a->skel)) {
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
	a->new_cgroups = ring_buffer__new(bpf_map__fd(a->skel->maps.new_cgroups), new_cgroup, a, NULL);
	if (!a->new_cgroups) {
		rt_format(err, errlen, "cannot map the ring of new cgroups: %s", strerror(errno));
		goto fail;
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

/* Room for n more entries in d. */
static int dump_grow(struct map_dump *d, size_t key_size, size_t n)
{
	size_t cap = d->cap;
	uint8_t *keys;
	struct rt_cpu_time *values;

	while (cap < d->nr + n)
		cap = cap ? cap * 2 : RT_EXPORT_MAP_ENTRIES;
	if (cap == d->cap)
		return 0;
	keys = realloc(d->keys, cap * key_size);
	if (keys)
		d->keys = keys;
	values = keys ? realloc(d->values, cap * sizeof(*values)) : NULL;
	if (!values)
		return -ENOMEM;
	d->values = values;
	d->cap = cap;
	return 0;
}

/* Every entry of a hash map keyed by key_size bytes, valued struct
 * rt_cpu_time, into d, with BPF_MAP_LOOKUP_BATCH: bucket by bucket, each
 * entry once (get_next_key starts over when its key is evicted meanwhile). */
static int dump_map(int fd, size_t key_size, struct map_dump *d)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 token = 0;
	bool first = true;

	d->nr = 0;
	for (;;) {
		__u32 count;
		int err;

		if (d->nr == d->cap && dump_grow(d, key_size, 1))
			return -ENOMEM;
		count = (__u32)(d->cap - d->nr);
		err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
					   d->keys + d->nr * key_size, d->values + d->nr, &count,
					   &opts);
		if (err && errno == ENOSPC) {
			/* a bucket holds more than there is room for: more
			 * room, and start over (keys inserted meanwhile) */
			if (dump_grow(d, key_size, d->cap))
				return -ENOMEM;
			d->nr = 0;
			first = true;
			continue;
		}
		if (err && errno != ENOENT)
			return -errno;
		first = false;
		d->nr += count;
		if (err || !count)
			return 0; /* ENOENT: the last bucket was read */
	}
}

/* What the BPF program added to map m, over every CPU. */
static int map_adds(struct aggregator *a, int m, struct rt_map_adds *out)
{
	struct rt_export_counters *counters = calloc((size_t)a->nr_possible, sizeof(*counters));
	__u32 zero = 0;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (counters && bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.counters), &zero, counters))
		ret = -errno;
	else if (counters) {
		for (int c = 0; c < a->nr_possible; c++) {
			const struct rt_map_adds *x = m == MAP_COMM ? &counters[c].comm
								    : &counters[c].cgroup;

			out->inserts += x->inserts;
			out->added.samples += x->added.samples;
			out->added.ns += x->added.ns;
		}
		ret = 0;
	}
	free(counters);
	return ret;
}

/* total - held if that is more than reported, else reported. */
static uint64_t raised(uint64_t reported, uint64_t total, uint64_t held)
{
	return total > held && total - held > reported ? total - held : reported;
}

/* Reads map m into its dump and updates what was evicted from it: what was
 * added, read after the map, less what the map holds. */
static int read_map(struct aggregator *a, int m, size_t key_size)
{
	struct map_dump *d = &a->dumps[m];
	int fd = bpf_map__fd(m == MAP_COMM ? a->skel->maps.comm_time : a->skel->maps.cgroup_time);
	struct rt_cpu_time held;
	struct rt_map_adds adds;
	int r;

	if ((r = dump_map(fd, key_size, d)) || (r = map_adds(a, m, &adds)))
		return r;
	/* what was removed on purpose is neither held nor evicted */
	held = d->forgotten.time;
	for (size_t i = 0; i < d->nr; i++) {
		held.samples += d->values[i].samples;
		held.ns += d->values[i].ns;
	}
	d->evicted.keys = raised(d->evicted.keys, adds.inserts, d->nr + d->forgotten.keys);
	d->evicted.time.samples = raised(d->evicted.time.samples, adds.added.samples, held.samples);
	d->evicted.time.ns = raised(d->evicted.time.ns, adds.added.ns, held.ns);
	return 0;
}

int aggregator_each_cgroup(struct aggregator *a,
			   int (*fn)(void *ctx, uint64_t id, const struct rt_cpu_time *t), void *ctx,
			   struct aggregator_evicted *evicted)
{
	struct map_dump *d = &a->dumps[MAP_CGROUP];
	int ret;

	pthread_mutex_lock(&a->lock);
	ret = read_map(a, MAP_CGROUP, sizeof(uint64_t));
	for (size_t i = 0; !ret && i < d->nr; i++) {
		uint64_t id;

		memcpy(&id, d->keys + i * sizeof(id), sizeof(id));
		ret = fn(ctx, id, &d->values[i]) ? -ECANCELED : 0;
	}
	*evicted = d->evicted;
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int aggregator_each_comm(struct aggregator *a,
			 int (*fn)(void *ctx, const char *comm, const struct rt_cpu_time *t),
			 void *ctx, struct aggregator_evicted *evicted)
{
	struct map_dump *d = &a->dumps[MAP_COMM];
	int ret;

	pthread_mutex_lock(&a->lock);
	ret = read_map(a, MAP_COMM, RT_EXPORT_COMM_LEN);
	for (size_t i = 0; !ret && i < d->nr; i++) {
		char comm[RT_EXPORT_COMM_LEN + 1] = { 0 };

		memcpy(comm, d->keys + i * RT_EXPORT_COMM_LEN, RT_EXPORT_COMM_LEN);
		ret = fn(ctx, comm, &d->values[i]) ? -ECANCELED : 0;
	}
	*evicted = d->evicted;
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int aggregator_forget_cgroup(struct aggregator *a, uint64_t id)
{
	struct map_dump *d = &a->dumps[MAP_CGROUP];
	int fd = bpf_map__fd(a->skel->maps.cgroup_time), ret = -ENOENT;
	struct rt_cpu_time t;

	pthread_mutex_lock(&a->lock);
	/* a cgroup that is gone has no task to sample: its value is final */
	if (!bpf_map_lookup_elem(fd, &id, &t) && !bpf_map_delete_elem(fd, &id)) {
		d->forgotten.keys++;
		d->forgotten.time.samples += t.samples;
		d->forgotten.time.ns += t.ns;
		ret = 0;
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int aggregator_new_cgroups_fd(struct aggregator *a)
{
	return a->new_cgroups ? ring_buffer__epoll_fd(a->new_cgroups) : -ENOENT;
}

int aggregator_new_cgroups(struct aggregator *a, void (*fn)(void *ctx, uint64_t id), void *ctx)
{
	int n;

	if (!a->new_cgroups)
		return -ENOENT;
	a->on_new_cgroup = fn;
	a->on_new_cgroup_ctx = ctx;
	n = ring_buffer__consume(a->new_cgroups);
	a->on_new_cgroup = NULL;
	return n;
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
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (hists && bpf_map_lookup_elem(bpf_map__fd(a->skel->maps.runq_hist), &zero, hists))
		ret = -errno;
	else if (hists) {
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
	ring_buffer__free(a->new_cgroups);
	for (unsigned int i = 0; a->event_fds && i < a->cpus.nr; i++)
		if (a->event_fds[i] >= 0)
			close(a->event_fds[i]);
	aggregator_bpf__destroy(a->skel);
	for (int m = 0; m < NR_MAPS; m++) {
		free(a->dumps[m].keys);
		free(a->dumps[m].values);
	}
	pthread_mutex_destroy(&a->lock);
	cpu_list_free(&a->cpus);
	free(a->event_fds);
	free(a->links);
	free(a);
}
