/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_sampler.c: starts the BPF sampler (loaded by bpf_sampler_load.c), opens
 * the recording's perf events and attaches to them with its scope filters,
 * and drains its transport (what its maps count: sampler_counters.c). */
#include "capture/bpf_sampler_state.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "capture/usdt_multi.h"
#include "lib/log.h"
#include "sys/privileges.h"
#include "sys/process_tree.h"

/* Whether process pid is followed (in target_tgids, map fd *ctx). */
static bool in_targets(uint32_t pid, void *ctx)
{
	__u8 v;

	return !bpf_map_lookup_elem(*(int *)ctx, &pid, &v);
}

/* Follows pid, forked by followed ppid: 1 if it was not yet. */
static int follow_target(uint32_t pid, uint32_t ppid, void *ctx)
{
	__u8 yes = 1;

	if (!bpf_map_update_elem(*(int *)ctx, &pid, &yes, BPF_NOEXIST))
		return 1;
	if (errno != EEXIST) /* (EEXIST: followed already) */
		rt_warn("process %u, forked by followed process %u during the start, "
			"is not followed: %s", pid, ppid, strerror(errno));
	return 0;
}

/* Follows the children of followed processes forked after ringtrace started
 * but before follow_fork was attached (a -g start loads for seconds), as
 * follow_fork would have: they are in /proc now. */
static int follow_earlier_forks(struct bpf_sampler *s, char *err, size_t errlen)
{
	int fd = bpf_map__fd(s->skel->maps.target_tgids);

	if (!process_tree_follow_forks(in_targets, follow_target, &fd))
		return 0;
	rt_format(err, errlen, "cannot read the processes forked during the start from /proc: %s",
		  strerror(errno));
	return -errno;
}

/* Fills the maps the filters read: CPUs, processes, threads, cgroup. */
static int fill_scope_maps(struct bpf_sampler *s, const struct sampler_scope *sc, char *err,
			   size_t errlen)
{
	struct sampler_bpf *k = s->skel;
	__u8 yes = 1, pending = 0;

	for (unsigned int i = 0; sc->only_these_cpus && i < sc->cpus->nr; i++) {
		__u32 cpu = (__u32)sc->cpus->cpus[i];

		if (bpf_map_update_elem(bpf_map__fd(k->maps.cpu_filter), &cpu, &yes, BPF_ANY))
			goto fail;
	}
	for (unsigned int i = 0; i < sc->nr_tgids; i++)
		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_tgids), &sc->tgids[i],
					sc->tgids[i] == sc->exec_pending ? &pending : &yes, BPF_ANY))
			goto fail;
	for (unsigned int i = 0; i < sc->nr_tids; i++)
		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_tids), &sc->tids[i],
					sc->tids[i] == sc->exec_pending ? &pending : &yes, BPF_ANY))
			goto fail;
	if (sc->cgroup_fd >= 0) {
		__u32 zero = 0, fd = (__u32)sc->cgroup_fd;

		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_cgroup), &zero, &fd, BPF_ANY))
			goto fail;
	}
	return 0;
fail:
	rt_format(err, errlen, "cannot set up the sampler's filters: %s", strerror(errno));
	return -errno;
}

static int remember(struct bpf_sampler *s, int fd, struct bpf_link *link)
{
	if (s->nr_attached == s->cap_attached) {
		unsigned int cap = s->cap_attached ? s->cap_attached * 2 : 16;
		struct attachment *grown = realloc(s->attached, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->attached = grown;
		s->cap_attached = cap;
	}
	s->attached[s->nr_attached++] = (struct attachment){ fd, link };
	return 0;
}

/* Attaches a tracing program (tp_btf) and keeps its link: 0, or -errno with
 * errno set and nothing left attached. */
static int attach_tracing(struct bpf_sampler *s, struct bpf_program *prog)
{
	struct bpf_link *link = bpf_program__attach(prog);
	int e;

	if (!link)
		return -errno;
	if (!remember(s, -1, link))
		return 0;
	e = errno;
	bpf_link__destroy(link);
	errno = e;
	return -e;
}

/* Opens one perf event and attaches prog with the event's index as cookie. */
static int open_and_attach(struct bpf_sampler *s, struct bpf_program *prog,
			   struct perf_event_attr *attr, int pid, int cpu, unsigned int index,
			   char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = index);
	struct bpf_link *link;
	int fd = perf_event_open_fd(attr, pid, cpu, -1, 0);

	if (fd < 0) {
		if (fd == -ESRCH)
			rt_format(err, errlen, "thread %d exited before it could be traced", pid);
		else
			rt_format(err, errlen, "cannot open perf event (type %u, config %llu) on %s %d: %s%s",
				  attr->type, (unsigned long long)attr->config,
				  cpu >= 0 ? "CPU" : "thread", cpu >= 0 ? cpu : pid,
				  strerror(-fd), privileges_hint(-fd));
		return fd;
	}
	link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
	if (!link) {
		int e = errno;

		rt_format(err, errlen, "cannot attach the sampler to a perf event: %s%s", strerror(e),
			  privileges_hint(e));
		close(fd);
		return -e;
	}
	if (remember(s, fd, link)) {
		bpf_link__destroy(link);
		close(fd);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The perf event the sampler runs on. A tracepoint's only counts: its
 * program keeps every perf event on the tracepoint going (returns 1), so a
 * sampling event of ringtrace's own would sample each hit for nothing. */
static void event_attr(struct perf_event_attr *attr, const struct sampler_event *ev)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = ev->config;
	attr->disabled = 1;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	if (ev->format) {
		attr->sample_period = 0;
	} else if (ev->rate.freq) {
		attr->freq = 1;
		attr->sample_freq = ev->rate.freq;
	} else {
		attr->sample_period = ev->rate.period;
	}
}

/* Whether ev's sites are within --usdt-sites: as perf events, one a site,
 * each site's removal waits an RCU grace period (20,000 sites held a
 * recording in D state for 18 minutes). 0, or -E2BIG with err set. */
static int usdt_sites_within(const struct bpf_sampler *s, const struct sampler_event *ev,
			     char *err, size_t errlen)
{
	const struct user_probe *p = ev->probe;
	size_t nr = ev->usdt_sites ? ev->usdt_sites->nr : 0;

	if (nr <= s->usdt_sites_max)
		return 0;
	rt_format(err, errlen, "USDT probe %s:%s has %zu sites in %s, more than %zu%s: --usdt-sites "
		  "%zu attaches them", p->provider, p->probe, nr, p->path, s->usdt_sites_max,
		  s->usdt_multi ? "" : " (this kernel has no uprobe_multi links, Linux 6.6: each "
				       "site is a perf event whose removal waits an RCU grace "
				       "period)", nr);
	return -E2BIG;
}

/* Every site of USDT event ev as one uprobe_multi link (usdt_multi.h). */
static int attach_usdt_multi(struct bpf_sampler *s, const struct sampler_event *ev,
			     unsigned int i, char *err, size_t errlen)
{
	struct bpf_map *specs = s->skel->maps.__bpf_usdt_specs;
	const struct user_probe *p = ev->probe;
	char why[256];
	int fd;

	fd = usdt_multi_attach(bpf_program__fd(s->skel->progs.on_usdt), bpf_map__fd(specs),
			       bpf_map__max_entries(specs), &s->usdt_specs_used, user_probe_file(p),
			       ev->usdt_sites, i, why, sizeof(why));
	if (fd < 0) {
		rt_format(err, errlen, "cannot attach to USDT probe %s:%s in %s: %s%s", p->provider,
			  p->probe, p->path, why, privileges_hint(-fd));
		return fd;
	}
	if (remember(s, fd, NULL)) {
		close(fd);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* A uprobe, uretprobe or USDT probe, in every process (the scope filters in
 * BPF, so forked children are followed as for other events), through
 * libbpf: uprobe perf events (no tracefs uprobe_events entry), a USDT
 * probe's semaphore raised by the kernel's reference counter. The link owns
 * the perf event: a killed recording leaves nothing attached. */
static int attach_user_probe(struct bpf_sampler *s, const struct sampler_event *ev,
			     unsigned int i, char *err, size_t errlen)
{
	const struct user_probe *p = ev->probe;
	struct bpf_link *link;
	int e;

	if ((ev->probe_flags & RT_EVENT_USDT) && (e = usdt_sites_within(s, ev, err, errlen)))
		return e;
	if ((ev->probe_flags & RT_EVENT_USDT) && s->usdt_multi && ev->usdt_sites)
		return attach_usdt_multi(s, ev, i, err, errlen);
	if (ev->probe_flags & RT_EVENT_USDT) {
		LIBBPF_OPTS(bpf_usdt_opts, uopts, .usdt_cookie = i);

		link = bpf_program__attach_usdt(s->skel->progs.on_usdt, -1, user_probe_file(p), p->provider,
						p->probe, &uopts);
	} else {
		/* by the offset found, where there is one: libbpf 1.1 refuses a
		 * name defined twice, even at one address */
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = i,
			    .func_name = p->func_offset ? NULL : p->func,
			    .retprobe = (ev->probe_flags & RT_EVENT_URETPROBE) != 0);

		link = bpf_program__attach_uprobe_opts(s->skel->progs.on_uprobe, -1, user_probe_file(p),
						       p->func_offset + p->offset, &opts);
	}
	if (!link) {
		e = errno;
		if (ev->probe_flags & RT_EVENT_USDT)
			rt_format(err, errlen, "cannot attach to USDT probe %s:%s in %s: %s%s",
				  p->provider, p->probe, p->path, strerror(e), privileges_hint(e));
		else
			rt_format(err, errlen, "cannot attach a %s to %s in %s: %s%s",
				  ev->probe_flags & RT_EVENT_URETPROBE ? "uretprobe" : "uprobe",
				  p->func, p->path, strerror(e), privileges_hint(e));
		return -e;
	}
	if (remember(s, -1, link)) {
		bpf_link__destroy(link);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* Tracepoint programs run on every hit of the tracepoint once attached to any
 * one of its perf events: one event per tracepoint, scope filtered in BPF.
 * Other events sample per CPU, or per thread in per-thread mode. */
static int attach_event(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, unsigned int i,
			char *err, size_t errlen)
{
	const struct sampler_scope *sc = &cfg->scope;
	const struct sampler_event *ev = &cfg->events[i];
	struct perf_event_attr attr;
	int r;

	if (ev->offcpu)
		return 0; /* the switch program, attached once for every CPU */
	if (ev->probe)
		return attach_user_probe(s, ev, i, err, errlen);
	event_attr(&attr, ev);
	if (ev->format)
		return open_and_attach(s, s->skel->progs.on_tracepoint, &attr, -1, sc->cpus->cpus[0], i,
				       err, errlen);
	if (sc->nr_threads) {
		for (unsigned int t = 0; t < sc->nr_threads; t++) {
			if (!sc->only_these_cpus) {
				if ((r = open_and_attach(s, s->skel->progs.on_perf_event, &attr,
							 sc->threads[t], -1, i, err, errlen)))
					return r;
				continue;
			}
			for (unsigned int c = 0; c < sc->cpus->nr; c++)
				if ((r = open_and_attach(s, s->skel->progs.on_perf_event, &attr,
							 sc->threads[t], sc->cpus->cpus[c], i, err,
							 errlen)))
					return r;
		}
		return 0;
	}
	for (unsigned int c = 0; c < sc->cpus->nr; c++)
		if ((r = open_and_attach(s, s->skel->progs.on_perf_event, &attr, -1, sc->cpus->cpus[c],
					 i, err, errlen)))
			return r;
	return 0;
}

static int fill_event(struct bpf_sampler *s, unsigned int i, const struct sampler_event *ev,
		      char *err, size_t errlen)
{
	struct rt_event e = { .id = ev->id, .period = 1 };

	if (ev->probe) {
		e.flags = ev->probe_flags;
		e.tp_type = (__u16)ev->format->id;
		e.fixed_size = (__u16)ev->format->fixed_size;
		e.nr_args = (__u8)ev->probe->nr_args;
	} else if (ev->format) {
		e.flags = RT_EVENT_TRACEPOINT | (ev->syscall ? RT_EVENT_SYSCALL : 0);
		e.period = ev->tracepoint_period ? ev->tracepoint_period : 1;
		e.tp_type = (__u16)ev->format->id;
		e.fixed_size = (__u16)ev->format->fixed_size;
		e.nr_dynamic = ev->format->nr_dynamic;
		if (ev->filter) {
			e.flags |= RT_EVENT_FILTERED;
			if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.event_filters), &i,
						ev->filter, BPF_ANY)) {
				rt_format(err, errlen, "cannot give event %u its --filter: %s", i,
					  strerror(errno));
				return -errno;
			}
		}
		for (unsigned int d = 0; d < ev->format->nr_dynamic; d++) {
			e.dynamic_offset[d] = ev->format->dynamic_offset[d];
			if (ev->format->dynamic_relative[d])
				e.dynamic_relative |= (__u8)(1u << d);
		}
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.events), &i, &e, BPF_ANY)) {
		rt_format(err, errlen, "cannot describe event %u to the sampler: %s", i,
			  strerror(errno));
		return -errno;
	}
	return 0;
}

/* --transport ring: every page of the rings read once through the kernel's
 * mapping before the first sample (bpf/sample_buffers.bpf.c, own_rings_touch) */
static void touch_own_rings(const struct bpf_sampler *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);

	if (bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.own_rings_touch), &run))
		rt_warn("cannot read the rings' pages ahead (%s): the first pass through them is slower",
			strerror(errno));
	else if (bpf_sampler_verbose())
		rt_info("ringtrace: read the rings' %u pages ahead", run.retval);
}

int bpf_sampler_attach(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
		       size_t errlen)
{
	if (transport_install(s->transport,
			      &(struct transport_maps){
				      .ring_array_fd = bpf_map__fd(s->skel->maps.cpu_rings),
				      .perf_array_fd = bpf_map__fd(s->skel->maps.perf_rings),
				      .own_rings_fd = bpf_map__fd(s->skel->maps.own_rings),
				      .wakeups_fd = bpf_map__fd(s->skel->maps.ring_wakeups),
				      .nr_possible_cpus = (unsigned int)s->nr_possible },
			      err, errlen) ||
	    fill_scope_maps(s, &cfg->scope, err, errlen))
		return -1;
	if (cfg->transport == TRANSPORT_RING)
		touch_own_rings(s);
	if (cfg->unwind_ehframe && (attach_tracing(s, s->skel->progs.unwind_fork) ||
				    attach_tracing(s, s->skel->progs.unwind_exec))) {
		rt_format(err, errlen, "cannot track forks and execs for -g: %s", strerror(errno));
		return -1;
	}
	if (cfg->scope.follow_forks && attach_tracing(s, s->skel->progs.follow_fork)) {
		rt_format(err, errlen, "cannot follow forks of the traced processes: %s",
			  strerror(errno));
		return -1;
	}
	/* a process that exited leaves the scope once freed */
	if (cfg->scope.follow_forks && attach_tracing(s, s->skel->progs.forget_free)) {
		rt_format(err, errlen, "cannot watch the traced processes' ends: %s",
			  strerror(errno));
		return -1;
	}
	if (cfg->scope.follow_forks && follow_earlier_forks(s, err, errlen))
		return -1;
	s->follows_forks = cfg->scope.follow_forks;
	/* one program at exits: followed processes leave, mappings go */
	if ((cfg->scope.follow_forks || cfg->unwind_ehframe) &&
	    attach_tracing(s, s->skel->progs.forget_exit)) {
		rt_format(err, errlen, "cannot watch the traced processes' exits: %s",
			  strerror(errno));
		return -1;
	}
	if (cfg->scope.exec_pending && attach_tracing(s, s->skel->progs.admit_on_exec)) {
		rt_format(err, errlen, "cannot watch the command's exec: %s", strerror(errno));
		return -1;
	}
	/* every event is described before the first one is attached */
	for (unsigned int i = 0; i < cfg->nr_events; i++)
		if (fill_event(s, i, &cfg->events[i], err, errlen))
			return -1;
	for (unsigned int i = 0; i < cfg->nr_events; i++)
		if (attach_event(s, cfg, i, err, errlen))
			return -1;
	if (s->offcpu && attach_tracing(s, s->skel->progs.offcpu_switch)) {
		int e = errno;

		rt_format(err, errlen, "cannot attach the off-CPU program to sched_switch: %s%s",
			  strerror(e), privileges_hint(e));
		return -1;
	}
	return 0;
}

int bpf_sampler_epoll_fd(const struct bpf_sampler *s)
{
	return transport_epoll_fd(s->transport);
}

long bpf_sampler_drain(struct bpf_sampler *s)
{
	return transport_drain(s->transport);
}

int bpf_sampler_busiest_cpu(const struct bpf_sampler *s, uint64_t *records, uint64_t *quietest)
{
	return transport_busiest_cpu(s->transport, records, quietest);
}

int bpf_sampler_ring_usage(const struct bpf_sampler *s, unsigned int i, int *cpu, uint64_t *used,
			   uint64_t *capacity)
{
	return transport_ring_usage(s->transport, i, cpu, used, capacity);
}

long bpf_sampler_snapshot(struct bpf_sampler *s, int cpu, const struct transport_sink *sink)
{
	return transport_snapshot(s->transport, cpu, sink);
}

/* Destroying a perf event's link closes the event too (libbpf owns it). */
void bpf_sampler_stop(struct bpf_sampler *s)
{
	for (unsigned int i = 0; i < s->nr_attached; i++)
		if (s->attached[i].link)
			bpf_link__destroy(s->attached[i].link);
		else /* a link of our own (usdt_multi.h) */
			close(s->attached[i].fd);
	s->nr_attached = 0;
	/* a program that was running as it was detached ends its write (or
	 * counts it lost) before the last drain */
	if (s->transport)
		transport_stop_writers(s->transport);
}

void bpf_sampler_close(struct bpf_sampler *s)
{
	if (!s)
		return;
	bpf_sampler_stop(s);
	free(s->attached);
	transport_free(s->transport);
	sampler_bpf__destroy(s->skel);
	free(s);
}
