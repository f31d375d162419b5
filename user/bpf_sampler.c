/* bpf_sampler.c: loads the BPF sampler, opens the recording's perf events and
 * attaches to them with its scope filters, and drains its transport. */
#include "bpf_sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "log.h"
#include "perf_ring.h"
#include "sampler.skel.h"

struct ring {
	int map_fd;
	int cpu; /* -1: the single ring of per-thread mode */
};

/* One opened perf event and the program's link to it. */
struct attachment {
	int fd;
	struct bpf_link *link;
};

/* One CPU's perf ring of the perf event array transport. */
struct perf_output {
	int cpu;
	struct perf_ring ring;
	uint64_t kernel_lost;  /* reported by the kernel's LOST records */
	uint64_t held_lost;    /* a LOST read, waiting for the time of the next record */
	uint64_t last_time;    /* of the last sample read */
	struct bpf_sampler *owner;
};

struct bpf_sampler {
	enum sampler_transport transport;
	struct sampler_bpf *skel;
	struct ring_buffer *consumer; /* ring buffers */
	struct ring *rings;
	unsigned int nr_rings;
	struct perf_output *outputs;  /* perf event array */
	unsigned int nr_outputs;
	int perf_epoll_fd;
	struct attachment *attached;
	unsigned int nr_attached, cap_attached;
	int nr_possible;
	struct bpf_sampler_sink sink;
	uint64_t bounce[65536 / 8]; /* an aligned copy of a perf ring's payload */
};

static bool libbpf_verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return libbpf_verbose ? vfprintf(stderr, fmt, ap) : 0;
}

void bpf_sampler_set_verbose(bool verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(print_libbpf);
}

/* What a failed bpf() or perf_event_open() most likely means, as a fix. */
static const char *privilege_hint(int err)
{
	if ((err == EPERM || err == EACCES) && geteuid() != 0)
		return ": run as root or grant CAP_BPF and CAP_PERFMON (setcap cap_bpf,cap_perfmon+ep ringtrace)";
	return "";
}

/* Samples carry the CPU they were taken on in word 5 (u32 cpu, u32 res), the
 * BPF side's LOST_SAMPLES records in word 4 of theirs. */
static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct bpf_sampler *s = ctx;
	struct perf_event_header h;
	uint32_t cpu;

	if (size < RT_LOST_WORDS * 8)
		return -EBADMSG;
	memcpy(&h, data, sizeof(h));
	if (h.size > size || (h.type == PERF_RECORD_SAMPLE && h.size < RT_SAMPLE_FIXED_WORDS * 8) ||
	    (h.type != PERF_RECORD_SAMPLE && h.type != PERF_RECORD_LOST_SAMPLES))
		return -EBADMSG;
	memcpy(&cpu, (const uint8_t *)data + (h.type == PERF_RECORD_SAMPLE ? 5 : 4) * 8, sizeof(cpu));
	return s->sink.record(s->sink.ctx, (int)cpu, data, h.size);
}

/* A record of a perf ring: PERF_RECORD_SAMPLE wrapping one of ours as its raw
 * payload (u32 size, then the record), or the kernel's PERF_RECORD_LOST,
 * which is reported with the time of the record after it, as the kernel
 * wrote it just before that one. */
static int on_perf_record(void *ctx, const struct perf_event_header *rec)
{
	struct perf_output *o = ctx;
	struct bpf_sampler *s = o->owner;
	struct perf_event_header inner;
	uint32_t raw_size;
	int r;

	if (rec->type == PERF_RECORD_LOST) {
		uint64_t lost;

		if (rec->size < 24)
			return -EBADMSG;
		memcpy(&lost, (const uint8_t *)rec + 16, sizeof(lost));
		o->held_lost += lost;
		return 0;
	}
	if (rec->type != PERF_RECORD_SAMPLE || rec->size < 12 + RT_SAMPLE_FIXED_WORDS * 8)
		return -EBADMSG;
	memcpy(&raw_size, (const uint8_t *)rec + 8, sizeof(raw_size));
	memcpy(&inner, (const uint8_t *)rec + 12, sizeof(inner));
	if (raw_size > rec->size - 12u || inner.size > raw_size || inner.type != PERF_RECORD_SAMPLE ||
	    inner.size < RT_SAMPLE_FIXED_WORDS * 8)
		return -EBADMSG;
	memcpy(s->bounce, (const uint8_t *)rec + 12, inner.size);
	o->last_time = s->bounce[4];
	if (o->held_lost) {
		r = s->sink.kernel_lost(s->sink.ctx, o->cpu, o->held_lost, o->last_time);
		if (r)
			return r;
		o->kernel_lost += o->held_lost;
		o->held_lost = 0;
	}
	return s->sink.record(s->sink.ctx, o->cpu, s->bounce, inner.size);
}

static int check_btf(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		rt_format(err, errlen, "no kernel BTF at /sys/kernel/btf/vmlinux: ringtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -1;
	}
	return 0;
}

/* The perf event array transport: one BPF-output perf event per CPU with a
 * ring of ring_bytes, woken at wakeup_bytes; its records are read here. */
static int open_perf_outputs(struct bpf_sampler *s, const struct bpf_sampler_config *cfg,
			     char *err, size_t errlen)
{
	const struct cpu_list *cpus = cfg->scope.nr_threads ? cfg->online : cfg->scope.cpus;
	size_t pages = cfg->ring_bytes / (size_t)sysconf(_SC_PAGESIZE);

	s->perf_epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	s->outputs = calloc(cpus->nr, sizeof(*s->outputs));
	if (s->perf_epoll_fd < 0 || !s->outputs) {
		rt_format(err, errlen, "cannot set up the perf event array: %s", strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < cpus->nr; i++) {
		struct perf_output *o = &s->outputs[i];
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
			.watermark = 1,
			.wakeup_watermark = (__u32)cfg->wakeup_bytes,
		};
		struct epoll_event ev = { .events = EPOLLIN };
		int fd, r;

		o->owner = s;
		o->cpu = cpus->cpus[i];
		fd = perf_event_open_fd(&attr, -1, o->cpu, -1, 0);
		if (fd < 0) {
			rt_format(err, errlen, "cannot open the BPF output event of CPU %d: %s%s", o->cpu,
				  strerror(-fd), privilege_hint(-fd));
			return -1;
		}
		r = perf_ring_map(&o->ring, fd, pages);
		if (r) {
			rt_format(err, errlen, "cannot map a %zu-page perf ring on CPU %d: %s", pages,
				  o->cpu, strerror(-r));
			close(fd);
			return -1;
		}
		s->nr_outputs++;
		ev.data.fd = fd;
		if (epoll_ctl(s->perf_epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
			rt_format(err, errlen, "epoll_ctl: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int install_perf_outputs(struct bpf_sampler *s, char *err, size_t errlen)
{
	int map = bpf_map__fd(s->skel->maps.perf_rings);

	for (unsigned int i = 0; i < s->nr_outputs; i++) {
		__u32 key = (__u32)s->outputs[i].cpu, fd = (__u32)s->outputs[i].ring.fd;

		if (bpf_map_update_elem(map, &key, &fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot install the perf ring of CPU %d: %s",
				  s->outputs[i].cpu, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The rings, created before load: the first is also the template of the
 * outer map's inner maps (libbpf 1.1 cannot resize its own template). */
static int create_rings(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
			size_t errlen)
{
	bool single = cfg->scope.nr_threads > 0;

	s->nr_rings = single ? 1 : cfg->scope.cpus->nr;
	s->rings = calloc(s->nr_rings, sizeof(*s->rings));
	if (!s->rings)
		return -1;
	for (unsigned int i = 0; i < s->nr_rings; i++)
		s->rings[i].map_fd = -1;
	for (unsigned int i = 0; i < s->nr_rings; i++) {
		struct ring *r = &s->rings[i];

		r->cpu = single ? -1 : cfg->scope.cpus->cpus[i];
		r->map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rt_ring", 0, 0,
					   (__u32)cfg->ring_bytes, NULL);
		if (r->map_fd < 0) {
			int e = errno;

			rt_format(err, errlen, "cannot create a %zu-byte BPF ring: %s%s", cfg->ring_bytes,
				  strerror(e), privilege_hint(e));
			return -1;
		}
	}
	return 0;
}

/* Puts the rings in the outer map and under libbpf's consumer. */
static int install_rings(struct bpf_sampler *s, char *err, size_t errlen)
{
	int outer = bpf_map__fd(s->skel->maps.cpu_rings);

	for (unsigned int i = 0; i < s->nr_rings; i++) {
		struct ring *r = &s->rings[i];
		__u32 key = r->cpu < 0 ? 0 : (__u32)r->cpu;
		int e;

		if (bpf_map_update_elem(outer, &key, &r->map_fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot install a BPF ring: %s", strerror(errno));
			return -1;
		}
		if (!s->consumer) {
			s->consumer = ring_buffer__new(r->map_fd, on_ring_record, s, NULL);
			e = s->consumer ? 0 : -errno;
		} else {
			e = ring_buffer__add(s->consumer, r->map_fd, on_ring_record, s);
		}
		if (e) {
			rt_format(err, errlen, "cannot poll a BPF ring: %s", strerror(-e));
			return -1;
		}
	}
	return 0;
}

/* Fills the maps the filters read: CPUs, processes, threads, cgroup. */
static int fill_scope_maps(struct bpf_sampler *s, const struct sampler_scope *sc, char *err,
			   size_t errlen)
{
	struct sampler_bpf *k = s->skel;
	__u8 yes = 1;

	for (unsigned int i = 0; sc->only_these_cpus && i < sc->cpus->nr; i++) {
		__u32 cpu = (__u32)sc->cpus->cpus[i];

		if (bpf_map_update_elem(bpf_map__fd(k->maps.cpu_filter), &cpu, &yes, BPF_ANY))
			goto fail;
	}
	for (unsigned int i = 0; i < sc->nr_tgids; i++)
		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_tgids), &sc->tgids[i], &yes, BPF_ANY))
			goto fail;
	for (unsigned int i = 0; i < sc->nr_tids; i++)
		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_tids), &sc->tids[i], &yes, BPF_ANY))
			goto fail;
	if (sc->cgroup_fd >= 0) {
		__u32 zero = 0, fd = (__u32)sc->cgroup_fd;

		if (bpf_map_update_elem(bpf_map__fd(k->maps.target_cgroup), &zero, &fd, BPF_ANY))
			goto fail;
	}
	return 0;
fail:
	rt_format(err, errlen, "cannot set up the sampler's filters: %s", strerror(errno));
	return -1;
}

static int remember(struct bpf_sampler *s, int fd, struct bpf_link *link)
{
	if (s->nr_attached == s->cap_attached) {
		unsigned int cap = s->cap_attached ? s->cap_attached * 2 : 16;
		struct attachment *grown = realloc(s->attached, cap * sizeof(*grown));

		if (!grown)
			return -1;
		s->attached = grown;
		s->cap_attached = cap;
	}
	s->attached[s->nr_attached++] = (struct attachment){ fd, link };
	return 0;
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
				  strerror(-fd), privilege_hint(-fd));
		return -1;
	}
	link = bpf_program__attach_perf_event_opts(prog, fd, &opts);
	if (!link) {
		int e = errno;

		rt_format(err, errlen, "cannot attach the sampler to a perf event: %s%s", strerror(e),
			  privilege_hint(e));
		close(fd);
		return -1;
	}
	if (remember(s, fd, link)) {
		bpf_link__destroy(link);
		close(fd);
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

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
		attr->sample_period = 1;
	} else if (ev->rate.freq) {
		attr->freq = 1;
		attr->sample_freq = ev->rate.freq;
	} else {
		attr->sample_period = ev->rate.period;
	}
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

	event_attr(&attr, ev);
	if (ev->format)
		return open_and_attach(s, s->skel->progs.on_tracepoint, &attr, -1, sc->cpus->cpus[0], i,
				       err, errlen);
	if (sc->nr_threads) {
		for (unsigned int t = 0; t < sc->nr_threads; t++) {
			if (!sc->only_these_cpus) {
				if (open_and_attach(s, s->skel->progs.on_perf_event, &attr, sc->threads[t],
						    -1, i, err, errlen))
					return -1;
				continue;
			}
			for (unsigned int c = 0; c < sc->cpus->nr; c++)
				if (open_and_attach(s, s->skel->progs.on_perf_event, &attr, sc->threads[t],
						    sc->cpus->cpus[c], i, err, errlen))
					return -1;
		}
		return 0;
	}
	for (unsigned int c = 0; c < sc->cpus->nr; c++)
		if (open_and_attach(s, s->skel->progs.on_perf_event, &attr, -1, sc->cpus->cpus[c], i,
				    err, errlen))
			return -1;
	return 0;
}

static int fill_event(struct bpf_sampler *s, unsigned int i, const struct sampler_event *ev,
		      char *err, size_t errlen)
{
	struct rt_event e = { .id = ev->id, .period = 1 };

	if (ev->format) {
		e.flags = RT_EVENT_TRACEPOINT;
		e.period = ev->tracepoint_period ? ev->tracepoint_period : 1;
		e.tp_type = (__u16)ev->format->id;
		e.fixed_size = (__u16)ev->format->fixed_size;
		e.nr_dynamic = ev->format->nr_dynamic;
		for (unsigned int d = 0; d < ev->format->nr_dynamic; d++) {
			e.dynamic_offset[d] = ev->format->dynamic_offset[d];
			if (ev->format->dynamic_relative[d])
				e.dynamic_relative |= (__u8)(1u << d);
		}
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.events), &i, &e, BPF_ANY)) {
		rt_format(err, errlen, "cannot describe event %u to the sampler: %s", i,
			  strerror(errno));
		return -1;
	}
	return 0;
}

static int configure(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
		     size_t errlen)
{
	const struct sampler_scope *sc = &cfg->scope;
	struct sampler_bpf *k = s->skel;
	__u32 flags = 0;

	if (sc->only_these_cpus)
		flags |= RT_FILTER_CPU;
	if (sc->nr_tgids)
		flags |= RT_FILTER_TGID;
	if (sc->nr_tids)
		flags |= RT_FILTER_TID;
	if (sc->cgroup_fd >= 0)
		flags |= RT_FILTER_CGROUP;
	k->rodata->capture_callchain = cfg->callchain;
	k->rodata->capture_cgroup = cfg->cgroup_field;
	k->rodata->single_ring = sc->nr_threads > 0;
	k->rodata->use_perfbuf = cfg->transport == TRANSPORT_PERFBUF;
	k->rodata->filter_flags = flags;
	k->rodata->cgroup_exact = sc->cgroup_exact;
	k->rodata->target_cgroup_id = sc->cgroup_id;
	k->rodata->wakeup_bytes = cfg->wakeup_bytes;
	bpf_program__set_autoload(k->progs.follow_fork, sc->follow_forks);
	bpf_program__set_autoload(k->progs.forget_exit, sc->follow_forks);
	if (bpf_map__set_max_entries(k->maps.cpu_rings, (__u32)s->nr_possible) ||
	    bpf_map__set_max_entries(k->maps.perf_rings, (__u32)s->nr_possible) ||
	    bpf_map__set_max_entries(k->maps.cpu_filter, (__u32)s->nr_possible) ||
	    (s->nr_rings && bpf_map__set_inner_map_fd(k->maps.cpu_rings, s->rings[0].map_fd))) {
		rt_format(err, errlen, "cannot size the sampler's maps");
		return -1;
	}
	return 0;
}

struct bpf_sampler *bpf_sampler_start(const struct bpf_sampler_config *cfg,
				      const struct bpf_sampler_sink *sink, char *err, size_t errlen)
{
	struct bpf_sampler *s;
	int r;

	if (check_btf(err, errlen))
		return NULL;
	if (cfg->nr_events > RT_MAX_EVENTS) {
		rt_format(err, errlen, "too many events: at most %d", RT_MAX_EVENTS);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	s->transport = cfg->transport;
	s->sink = *sink;
	s->perf_epoll_fd = -1;
	s->nr_possible = libbpf_num_possible_cpus();
	s->skel = sampler_bpf__open();
	if (!s->skel) {
		rt_format(err, errlen, "cannot open the BPF sampler: %s", strerror(errno));
		goto fail;
	}
	if ((cfg->transport == TRANSPORT_PERFBUF ? open_perf_outputs(s, cfg, err, errlen)
						  : create_rings(s, cfg, err, errlen)) ||
	    configure(s, cfg, err, errlen))
		goto fail;
	r = sampler_bpf__load(s->skel);
	if (r) {
		rt_format(err, errlen, "cannot load the BPF sampler: %s%s (run with -v for the verifier's log)",
			  strerror(-r), privilege_hint(-r));
		goto fail;
	}
	if ((cfg->transport == TRANSPORT_PERFBUF ? install_perf_outputs(s, err, errlen)
						  : install_rings(s, err, errlen)) ||
	    fill_scope_maps(s, &cfg->scope, err, errlen))
		goto fail;
	for (unsigned int i = 0; i < s->nr_outputs; i++)
		if (ioctl(s->outputs[i].ring.fd, PERF_EVENT_IOC_ENABLE, 0)) {
			rt_format(err, errlen, "cannot enable the perf ring of CPU %d: %s",
				  s->outputs[i].cpu, strerror(errno));
			goto fail;
		}
	if (cfg->scope.follow_forks) {
		struct bpf_link *fork_link = bpf_program__attach(s->skel->progs.follow_fork);
		struct bpf_link *exit_link = bpf_program__attach(s->skel->progs.forget_exit);

		if (!fork_link || !exit_link || remember(s, -1, fork_link) ||
		    remember(s, -1, exit_link)) {
			rt_format(err, errlen, "cannot follow forks of the traced processes: %s",
				  strerror(errno));
			goto fail;
		}
	}
	/* every event is described before the first one is attached */
	for (unsigned int i = 0; i < cfg->nr_events; i++)
		if (fill_event(s, i, &cfg->events[i], err, errlen))
			goto fail;
	for (unsigned int i = 0; i < cfg->nr_events; i++)
		if (attach_event(s, cfg, i, err, errlen))
			goto fail;
	return s;
fail:
	bpf_sampler_close(s);
	return NULL;
}

int bpf_sampler_epoll_fd(const struct bpf_sampler *s)
{
	return s->transport == TRANSPORT_PERFBUF ? s->perf_epoll_fd
						 : ring_buffer__epoll_fd(s->consumer);
}

long bpf_sampler_drain(struct bpf_sampler *s)
{
	long total = 0;

	if (s->transport == TRANSPORT_RINGBUF)
		return ring_buffer__consume(s->consumer);
	for (unsigned int i = 0; i < s->nr_outputs; i++) {
		long n = perf_ring_drain(&s->outputs[i].ring, on_perf_record, &s->outputs[i]);

		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

uint64_t bpf_sampler_unreported_losses(const struct bpf_sampler *s, int cpu, uint64_t *time)
{
	struct rt_cpu_counters c;

	*time = 0;
	if (bpf_sampler_counters(s, cpu, &c))
		return 0;
	if (s->transport == TRANSPORT_RINGBUF) {
		*time = c.pending_time;
		return c.pending_lost;
	}
	for (unsigned int i = 0; i < s->nr_outputs; i++) {
		const struct perf_output *o = &s->outputs[i];

		if (o->cpu != cpu)
			continue;
		/* a LOST still held (nothing came after it) is reported here too */
		if (c.lost <= o->kernel_lost)
			return 0;
		*time = o->held_lost ? o->last_time : c.last_lost_time;
		return c.lost - o->kernel_lost;
	}
	*time = c.last_lost_time;
	return c.lost;
}

void bpf_sampler_stop(struct bpf_sampler *s)
{
	for (unsigned int i = 0; i < s->nr_attached; i++) {
		bpf_link__destroy(s->attached[i].link);
		if (s->attached[i].fd >= 0)
			close(s->attached[i].fd);
	}
	s->nr_attached = 0;
}

int bpf_sampler_counters(const struct bpf_sampler *s, int cpu, struct rt_cpu_counters *out)
{
	struct rt_cpu_counters *all;
	__u32 zero = 0;
	int ret = -1;

	if (cpu < 0 || cpu >= s->nr_possible)
		return -1;
	all = calloc((size_t)s->nr_possible, sizeof(*all));
	if (!all)
		return -1;
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.counters), &zero, all)) {
		*out = all[cpu];
		ret = 0;
	}
	free(all);
	return ret;
}

void bpf_sampler_close(struct bpf_sampler *s)
{
	if (!s)
		return;
	bpf_sampler_stop(s);
	free(s->attached);
	ring_buffer__free(s->consumer);
	for (unsigned int i = 0; i < s->nr_rings; i++)
		if (s->rings[i].map_fd >= 0)
			close(s->rings[i].map_fd);
	free(s->rings);
	for (unsigned int i = 0; i < s->nr_outputs; i++) {
		int fd = s->outputs[i].ring.fd;

		perf_ring_unmap(&s->outputs[i].ring);
		close(fd);
	}
	free(s->outputs);
	if (s->perf_epoll_fd >= 0)
		close(s->perf_epoll_fd);
	sampler_bpf__destroy(s->skel);
	free(s);
}
