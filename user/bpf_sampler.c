/* bpf_sampler.c: loads the BPF sampler, attaches it to one cpu-clock event
 * per CPU, and drains its per-CPU BPF ring buffers into a record callback. */
#include "bpf_sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sampler.skel.h"

struct ring_slot {
	struct bpf_sampler *owner;
	int cpu;
	int map_fd;
	int event_fd;
	struct bpf_link *link;
};

struct bpf_sampler {
	struct sampler_bpf *skel;
	struct ring_buffer *rings;
	struct ring_slot *slots;
	unsigned int nr_slots;
	int nr_possible;
	bpf_sampler_record_fn fn;
	void *ctx;
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

static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct ring_slot *slot = ctx;
	const uint16_t *hdr_size = (const uint16_t *)((const uint8_t *)data + 6);

	/* The program writes whole perf records; header.size is what counts. */
	if (size < 8 || *hdr_size < 8 || *hdr_size > size)
		return -EBADMSG;
	return slot->owner->fn(slot->owner->ctx, slot->cpu, data, *hdr_size);
}

static int check_btf(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		rt_format(err, errlen, "no kernel BTF at /sys/kernel/btf/vmlinux: ringtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -1;
	}
	return 0;
}

/* One BPF ring per CPU, created before load: the first is also the template
 * of the outer map's inner maps (libbpf 1.1 cannot resize its own template). */
static int create_rings(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
			size_t errlen)
{
	for (unsigned int i = 0; i < s->nr_slots; i++) {
		struct ring_slot *slot = &s->slots[i];
		char name[16];

		snprintf(name, sizeof(name), "rt_ring_%d", slot->cpu);
		slot->map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, name, 0, 0,
					      (__u32)cfg->ring_bytes, NULL);
		if (slot->map_fd < 0) {
			int e = errno;

			rt_format(err, errlen, "cannot create the %zu-byte ring of CPU %d: %s%s",
				  cfg->ring_bytes, slot->cpu, strerror(e), privilege_hint(e));
			return -1;
		}
	}
	return 0;
}

/* Puts each CPU's ring in the outer map and under libbpf's consumer. */
static int install_rings(struct bpf_sampler *s, char *err, size_t errlen)
{
	int outer = bpf_map__fd(s->skel->maps.cpu_rings);

	for (unsigned int i = 0; i < s->nr_slots; i++) {
		struct ring_slot *slot = &s->slots[i];
		__u32 key = (__u32)slot->cpu;
		int r;

		if (bpf_map_update_elem(outer, &key, &slot->map_fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot install the ring of CPU %d: %s", slot->cpu,
				  strerror(errno));
			return -1;
		}
		if (!s->rings) {
			s->rings = ring_buffer__new(slot->map_fd, on_ring_record, slot, NULL);
			r = s->rings ? 0 : -errno;
		} else {
			r = ring_buffer__add(s->rings, slot->map_fd, on_ring_record, slot);
		}
		if (r) {
			rt_format(err, errlen, "cannot poll the ring of CPU %d: %s", slot->cpu,
				  strerror(-r));
			return -1;
		}
	}
	return 0;
}

static int attach_events(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
			 size_t errlen)
{
	for (unsigned int i = 0; i < s->nr_slots; i++) {
		struct ring_slot *slot = &s->slots[i];
		struct perf_event_attr attr;
		int fd;

		perf_attr_cpu_clock(&attr, &cfg->rate);
		fd = perf_event_open_fd(&attr, -1, slot->cpu, -1, 0);
		if (fd < 0) {
			rt_format(err, errlen, "cannot open cpu-clock on CPU %d: %s%s", slot->cpu,
				  strerror(-fd), privilege_hint(-fd));
			return -1;
		}
		slot->event_fd = fd;
		slot->link = bpf_program__attach_perf_event(s->skel->progs.sample_on_overflow, fd);
		if (!slot->link) {
			int e = errno;

			rt_format(err, errlen, "cannot attach the sampler to cpu-clock on CPU %d: %s%s",
				  slot->cpu, strerror(e), privilege_hint(e));
			return -1;
		}
	}
	return 0;
}

struct bpf_sampler *bpf_sampler_start(const struct bpf_sampler_config *cfg,
				      bpf_sampler_record_fn fn, void *ctx, char *err,
				      size_t errlen)
{
	struct bpf_sampler *s;
	int r;

	if (check_btf(err, errlen))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->fn = fn;
	s->ctx = ctx;
	s->nr_possible = libbpf_num_possible_cpus();
	s->slots = calloc(cfg->cpus->nr, sizeof(*s->slots));
	if (!s->slots || s->nr_possible <= 0)
		goto nomem;
	s->nr_slots = cfg->cpus->nr;
	for (unsigned int i = 0; i < s->nr_slots; i++)
		s->slots[i] = (struct ring_slot){ s, cfg->cpus->cpus[i], -1, -1, NULL };

	s->skel = sampler_bpf__open();
	if (!s->skel) {
		rt_format(err, errlen, "cannot open the BPF sampler: %s", strerror(errno));
		goto fail;
	}
	s->skel->rodata->capture_callchain = cfg->callchain;
	s->skel->rodata->wakeup_bytes = cfg->wakeup_bytes;
	if (create_rings(s, cfg, err, errlen))
		goto fail;
	if (bpf_map__set_max_entries(s->skel->maps.cpu_rings, (__u32)s->nr_possible) ||
	    bpf_map__set_inner_map_fd(s->skel->maps.cpu_rings, s->slots[0].map_fd)) {
		rt_format(err, errlen, "cannot size the map of per-CPU rings");
		goto fail;
	}
	r = sampler_bpf__load(s->skel);
	if (r) {
		rt_format(err, errlen, "cannot load the BPF sampler: %s%s (run with -v for the verifier's log)",
			  strerror(-r), privilege_hint(-r));
		goto fail;
	}
	if (install_rings(s, err, errlen) || attach_events(s, cfg, err, errlen))
		goto fail;
	return s;
nomem:
	rt_format(err, errlen, "out of memory");
fail:
	bpf_sampler_close(s);
	return NULL;
}

int bpf_sampler_epoll_fd(const struct bpf_sampler *s)
{
	return ring_buffer__epoll_fd(s->rings);
}

long bpf_sampler_drain(struct bpf_sampler *s)
{
	return ring_buffer__consume(s->rings);
}

void bpf_sampler_stop(struct bpf_sampler *s)
{
	for (unsigned int i = 0; i < s->nr_slots; i++) {
		bpf_link__destroy(s->slots[i].link);
		s->slots[i].link = NULL;
		if (s->slots[i].event_fd >= 0)
			close(s->slots[i].event_fd);
		s->slots[i].event_fd = -1;
	}
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
	if (s->slots) {
		bpf_sampler_stop(s);
		ring_buffer__free(s->rings);
		for (unsigned int i = 0; i < s->nr_slots; i++)
			if (s->slots[i].map_fd >= 0)
				close(s->slots[i].map_fd);
	}
	sampler_bpf__destroy(s->skel);
	free(s->slots);
	free(s);
}
