/* SPDX-License-Identifier: GPL-2.0-only */
/* transport.c: how ringtrace's BPF records reach user space: BPF ring buffers,
 * a perf event array, or ringtrace's own rings in a BPF array, read here. */
#include "capture/transport.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stddef.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/bpf_ring.h"
#include "capture/own_ring.h"
#include "capture/perf_events.h"
#include "capture/perf_ring.h"
#include "capture/transport_state.h"
#include "lib/log.h"
#include "sample_record.h"
#include "sys/membarrier.h"
#include "sys/privileges.h"

_Static_assert(TRANSPORT_RING_MAX_BYTES == RT_RING_MAX_DATA, "the own rings' most");

/* Passes over a perf ring per drain (see transport_drain). */
#define PERF_DRAIN_PASSES 4

/* Samples and the BPF side's LOST_SAMPLES records carry the CPU they were
 * taken on. */
static int on_ring_record(void *ctx, const void *data, size_t size)
{
	struct transport *t = ctx;
	struct perf_event_header h;
	uint32_t cpu;

	if (size < sizeof(struct rt_lost_samples))
		return -EBADMSG;
	memcpy(&h, data, sizeof(h));
	if (h.size > size ||
	    (h.type == PERF_RECORD_SAMPLE && h.size < sizeof(struct rt_sample_head)) ||
	    (h.type != PERF_RECORD_SAMPLE && h.type != PERF_RECORD_LOST_SAMPLES))
		return -EBADMSG;
	memcpy(&cpu,
	       (const uint8_t *)data + (h.type == PERF_RECORD_SAMPLE
						? offsetof(struct rt_sample_head, cpu)
						: offsetof(struct rt_lost_samples, cpu)),
	       sizeof(cpu));
	return t->sink.record(t->sink.ctx, (int)cpu, data, h.size);
}

int transport_unwrap_sample(struct transport *t, const struct perf_event_header *rec,
			    struct perf_event_header *inner)
{
	uint32_t raw_size;

	if (rec->type != PERF_RECORD_SAMPLE || rec->size < 12 + sizeof(struct rt_sample_head))
		return -EBADMSG;
	memcpy(&raw_size, (const uint8_t *)rec + 8, sizeof(raw_size));
	memcpy(inner, (const uint8_t *)rec + 12, sizeof(*inner));
	if (raw_size > rec->size - 12u || inner->size > raw_size ||
	    inner->type != PERF_RECORD_SAMPLE || inner->size < sizeof(struct rt_sample_head))
		return -EBADMSG;
	memcpy(t->bounce, (const uint8_t *)rec + 12, inner->size);
	return 0;
}

/* A record of a perf ring: PERF_RECORD_SAMPLE wrapping one of ours as its raw
 * payload (u32 size, then the record), or the kernel's PERF_RECORD_LOST,
 * which is reported with the time of the record after it, as the kernel
 * wrote it just before that one. */
static int on_perf_record(void *ctx, const struct perf_event_header *rec)
{
	struct perf_output *o = ctx;
	struct transport *t = o->owner;
	struct perf_event_header inner;
	int r;

	if (rec->type == PERF_RECORD_LOST) {
		uint64_t lost;

		if (rec->size < 24)
			return -EBADMSG;
		memcpy(&lost, (const uint8_t *)rec + 16, sizeof(lost));
		o->held_lost += lost;
		return 0;
	}
	r = transport_unwrap_sample(t, rec, &inner);
	if (r)
		return r;
	o->last_time = t->bounce[4];
	if (o->held_lost) {
		const struct rt_sample_head *next = (const void *)t->bounce;

		r = t->sink.kernel_lost(t->sink.ctx, o->cpu, o->held_lost, o->last_time, next->pid,
					next->tid);
		if (r)
			return r;
		o->kernel_lost += o->held_lost;
		o->held_lost = 0;
	}
	return t->sink.record(t->sink.ctx, o->cpu, t->bounce, inner.size);
}

/* One BPF-output perf event per CPU with a ring of ring_bytes, woken at
 * wakeup_bytes (a watermark, not one wakeup per record). */
static int open_perf_outputs(struct transport *t, const struct transport_config *cfg, char *err,
			     size_t errlen)
{
	size_t pages = cfg->ring_bytes / (size_t)sysconf(_SC_PAGESIZE);

	t->outputs = calloc(cfg->cpus->nr, sizeof(*t->outputs));
	if (!t->outputs) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cfg->cpus->nr; i++) {
		struct perf_output *o = &t->outputs[i];
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
			.watermark = 1,
			.wakeup_watermark = (__u32)cfg->wakeup_bytes,
			.write_backward = cfg->overwrite,
		};
		struct epoll_event ev = { .events = EPOLLIN };
		int fd, r;

		o->owner = t;
		o->cpu = cfg->cpus->cpus[i];
		fd = perf_event_open_fd(&attr, -1, o->cpu, -1, 0);
		if (fd < 0) {
			rt_format(err, errlen, "cannot open the BPF output event of CPU %d: %s%s", o->cpu,
				  strerror(-fd), privileges_hint(-fd));
			return fd;
		}
		r = cfg->overwrite ? perf_ring_map_backward(&o->ring, fd, pages)
				   : perf_ring_map(&o->ring, fd, pages);
		if (r) {
			rt_format(err, errlen, "cannot map a %zu-page perf ring on CPU %d: %s", pages,
				  o->cpu, strerror(-r));
			close(fd);
			return r;
		}
		t->nr_outputs++;
		ev.data.fd = fd;
		/* an overwrite ring is never drained: it would always be ready */
		if (!cfg->overwrite && epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
			rt_format(err, errlen, "epoll_ctl: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int create_rings(struct transport *t, const struct transport_config *cfg, char *err,
			size_t errlen)
{
	t->nr_rings = cfg->single_ring ? 1 : cfg->cpus->nr;
	t->rings = calloc(t->nr_rings, sizeof(*t->rings));
	if (!t->rings) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < t->nr_rings; i++)
		t->rings[i].map_fd = -1;
	for (unsigned int i = 0; i < t->nr_rings; i++) {
		struct ring *r = &t->rings[i];
		int e;

		r->cpu = cfg->single_ring ? -1 : cfg->cpus->cpus[i];
		r->map_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rt_ring", 0, 0,
					   (__u32)cfg->ring_bytes, NULL);
		if (r->map_fd < 0) {
			int e = errno;

			rt_format(err, errlen, "cannot create a %zu-byte BPF ring: %s%s", cfg->ring_bytes,
				  strerror(e), privileges_hint(e));
			return -e;
		}
		e = bpf_ring_map(&r->reader, r->map_fd, cfg->ring_bytes);
		if (e) {
			rt_format(err, errlen, "cannot map a %zu-byte BPF ring: %s", cfg->ring_bytes,
				  strerror(-e));
			return e;
		}
	}
	/* a page: the consumer's cache line moves once per tens of records,
	 * and the producer never waits for more than a page of room (an
	 * eighth of the ring lost 0.2-0.4% of 1 M events at 400 000/s on
	 * two busy CPUs in test_loss, where this and libbpf's every-record
	 * release lost none) */
	t->release_bytes = 4096;
	return 0;
}

/* ring: the readers of the CPUs' rings, set up at install (the rings are the
 * BPF object's). */
static int create_owns(struct transport *t, const struct transport_config *cfg, char *err,
		       size_t errlen)
{
	t->owns = calloc(cfg->cpus->nr, sizeof(*t->owns));
	if (!t->owns) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->nr_owns = cfg->cpus->nr;
	for (unsigned int i = 0; i < t->nr_owns; i++)
		t->owns[i].cpu = cfg->cpus->cpus[i];
	t->own_data_bytes = cfg->ring_bytes;
	t->own_element_bytes = own_ring_element_bytes(cfg->ring_bytes, cfg->slack_bytes);
	/* (a backward ring is closed for each snapshot: a grace period each
	 * time is too long a pause; a realtime kernel (PREEMPT_RT) may preempt
	 * a tracepoint's program, and another of its CPU's then claim too) */
	t->plain_claims = !cfg->overwrite && !cfg->locked_claims &&
			  membarrier_global_offered() && access("/sys/kernel/realtime", F_OK);
	/* as the BPF rings' */
	t->release_bytes = 4096;
	return 0;
}

struct transport *transport_create(const struct transport_config *cfg,
				   const struct transport_sink *sink, char *err, size_t errlen)
{
	struct transport *t = calloc(1, sizeof(*t));
	int r;

	if (!t) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	t->kind = cfg->kind;
	t->busiest_cpu = -1;
	t->sink = *sink;
	t->overwrite = cfg->overwrite;
	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epoll_fd < 0) {
		rt_format(err, errlen, "epoll_create1: %s", strerror(errno));
		r = -errno;
	} else if (cfg->kind == TRANSPORT_PERFBUF) {
		r = open_perf_outputs(t, cfg, err, errlen);
	} else if (cfg->kind == TRANSPORT_RING) {
		r = create_owns(t, cfg, err, errlen);
	} else {
		r = create_rings(t, cfg, err, errlen);
	}
	if (r) {
		transport_free(t);
		return NULL;
	}
	return t;
}

int transport_inner_map_template(const struct transport *t)
{
	return t->nr_rings ? t->rings[0].map_fd : -1;
}

size_t transport_ring_element_bytes(const struct transport *t)
{
	return t->own_element_bytes;
}

static int install_rings(struct transport *t, int ring_array_fd, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < t->nr_rings; i++) {
		struct ring *r = &t->rings[i];
		__u32 key = r->cpu < 0 ? 0 : (__u32)r->cpu;
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = r->map_fd };

		if (bpf_map_update_elem(ring_array_fd, &key, &r->map_fd, BPF_ANY)) {
			rt_format(err, errlen, "cannot install a BPF ring: %s", strerror(errno));
			return -errno;
		}
		if (epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, r->map_fd, &ev)) {
			rt_format(err, errlen, "cannot poll a BPF ring: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static int install_perf_outputs(struct transport *t, int perf_array_fd, char *err, size_t errlen)
{
	for (unsigned int i = 0; i < t->nr_outputs; i++) {
		__u32 key = (__u32)t->outputs[i].cpu, fd = (__u32)t->outputs[i].ring.fd;

		if (bpf_map_update_elem(perf_array_fd, &key, &fd, BPF_ANY) ||
		    ioctl(t->outputs[i].ring.fd, PERF_EVENT_IOC_ENABLE, 0)) {
			rt_format(err, errlen, "cannot install the perf ring of CPU %d: %s",
				  t->outputs[i].cpu, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* ring: maps the array of rings (every possible CPU's element) and the
 * wakeup ring, which epoll watches. */
static int install_owns(struct transport *t, const struct transport_maps *maps, char *err,
			size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = maps->wakeups_fd };
	int r;

	t->own_map_size = t->own_element_bytes * maps->nr_possible_cpus;
	t->own_map = mmap(NULL, t->own_map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  maps->own_rings_fd, 0);
	if (t->own_map == MAP_FAILED) {
		t->own_map = NULL;
		rt_format(err, errlen, "cannot map the rings (%zu bytes): %s", t->own_map_size,
			  strerror(errno));
		return -errno;
	}
	for (unsigned int i = 0; i < t->nr_owns; i++)
		if (own_ring_init(&t->owns[i].ring,
				  (uint8_t *)t->own_map + (size_t)t->owns[i].cpu * t->own_element_bytes,
				  t->own_data_bytes)) {
			rt_format(err, errlen, "out of memory");
			return -ENOMEM;
		}
	r = bpf_ring_map(&t->wakeups, maps->wakeups_fd, 4096);
	if (r || epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, maps->wakeups_fd, &ev)) {
		r = r ? r : -errno;
		rt_format(err, errlen, "cannot poll the rings' wakeups: %s", strerror(-r));
		return r;
	}
	return 0;
}

int transport_install(struct transport *t, const struct transport_maps *maps, char *err,
		      size_t errlen)
{
	switch (t->kind) {
	case TRANSPORT_PERFBUF:
		return install_perf_outputs(t, maps->perf_array_fd, err, errlen);
	case TRANSPORT_RING:
		return install_owns(t, maps, err, errlen);
	default:
		return install_rings(t, maps->ring_array_fd, err, errlen);
	}
}

static int skip_wakeup(void *ctx, const void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	return 0;
}

/* Counts the records a drain read from cpu's ring (records < 0: an error)
 * towards the busiest ring's and the quietest's. */
static void note_drained(struct transport *t, int cpu, long records)
{
	uint64_t n = (uint64_t)records;

	if (cpu < 0 || records < 0)
		return;
	if (n > t->busiest_records) {
		t->busiest_cpu = cpu;
		t->busiest_records = n;
	}
	if (!t->rings_drained++ || n < t->quietest_records)
		t->quietest_records = n;
}

int transport_busiest_cpu(const struct transport *t, uint64_t *records, uint64_t *quietest)
{
	*records = t->busiest_records;
	*quietest = t->rings_drained > 1 ? t->quietest_records : 0;
	return t->busiest_cpu;
}

/* ring: every CPU's ring read, whichever woke the reader (or none: the
 * caller's own pace). */
static long drain_owns(struct transport *t)
{
	long total = 0, err = 0;

	if (t->overwrite)
		return 0; /* written backward: read by transport_snapshot alone */
	if (bpf_ring_drain(&t->wakeups, 4096, skip_wakeup, NULL) < 0)
		return -EBADMSG;
	for (unsigned int i = 0; i < t->nr_owns; i++) {
		long n = own_ring_drain(&t->owns[i].ring, t->release_bytes, on_ring_record, t);

		/* the others are read still */
		if (n < 0 && !err)
			err = n;
		total += n > 0 ? n : 0;
		note_drained(t, t->owns[i].cpu, n);
	}
	return err ? err : total;
}

int transport_epoll_fd(const struct transport *t)
{
	return t->epoll_fd;
}

long transport_drain(struct transport *t)
{
	long total = 0;

	t->busiest_cpu = -1;
	t->busiest_records = t->quietest_records = 0;
	t->rings_drained = 0;
	if (t->kind == TRANSPORT_RING)
		return drain_owns(t);
	if (t->kind == TRANSPORT_RINGBUF) {
		for (unsigned int i = 0; i < t->nr_rings; i++) {
			long n = bpf_ring_drain(&t->rings[i].reader, t->release_bytes, on_ring_record, t);

			if (n < 0)
				return n;
			total += n;
			note_drained(t, t->rings[i].cpu, n);
		}
		return total;
	}
	if (t->overwrite)
		return 0;
	/* a perf ring is polled ready only once per watermark wakeup: what
	 * comes while it is read is read too (a few passes, each to the head
	 * as it was then, so a producer as fast as the drain does not keep the
	 * caller from its other work), not left to wait for the next wakeup */
	for (unsigned int i = 0; i < t->nr_outputs; i++) {
		long records = 0;

		for (int pass = 0; pass < PERF_DRAIN_PASSES; pass++) {
			long n = perf_ring_drain(&t->outputs[i].ring, t->release_bytes, on_perf_record, &t->outputs[i]);

			if (n < 0)
				return n;
			records += n;
			if (!n)
				break;
		}
		total += records;
		note_drained(t, t->outputs[i].cpu, records);
	}
	return total;
}

uint64_t transport_kernel_lost(const struct transport *t, int cpu, uint64_t *held,
			       uint64_t *held_time)
{
	*held = *held_time = 0;
	for (unsigned int i = 0; i < t->nr_outputs; i++)
		if (t->outputs[i].cpu == cpu) {
			*held = t->outputs[i].held_lost;
			*held_time = t->outputs[i].last_time;
			return t->outputs[i].kernel_lost;
		}
	return 0;
}

int transport_ring_usage(const struct transport *t, unsigned int i, int *cpu, uint64_t *used,
			 uint64_t *capacity)
{
	if (t->kind == TRANSPORT_RINGBUF) {
		const struct ring *r = i < t->nr_rings ? &t->rings[i] : NULL;

		if (!r || !r->reader.consumer_pos)
			return -ENOENT;
		*cpu = r->cpu;
		*used = bpf_ring_pending(&r->reader);
		*capacity = r->reader.data_size;
		return 0;
	}
	if (t->kind == TRANSPORT_RING) {
		if (i >= t->nr_owns || !t->owns[i].ring.ctl)
			return -ENOENT;
		*cpu = t->owns[i].cpu;
		*used = own_ring_pending(&t->owns[i].ring);
		*capacity = t->own_data_bytes;
		return 0;
	}
	if (t->overwrite || i >= t->nr_outputs)
		return -ENOENT;
	*cpu = t->outputs[i].cpu;
	*used = perf_ring_pending(&t->outputs[i].ring);
	*capacity = t->outputs[i].ring.data_size;
	return 0;
}

void transport_free(struct transport *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; i < t->nr_rings; i++) {
		bpf_ring_unmap(&t->rings[i].reader);
		if (t->rings[i].map_fd >= 0)
			close(t->rings[i].map_fd);
	}
	free(t->rings);
	for (unsigned int i = 0; i < t->nr_outputs; i++) {
		int fd = t->outputs[i].ring.fd;

		perf_ring_unmap(&t->outputs[i].ring);
		close(fd);
	}
	free(t->outputs);
	for (unsigned int i = 0; i < t->nr_owns; i++)
		own_ring_free(&t->owns[i].ring);
	free(t->owns);
	if (t->own_map)
		munmap(t->own_map, t->own_map_size);
	bpf_ring_unmap(&t->wakeups);
	if (t->epoll_fd >= 0)
		close(t->epoll_fd);
	free(t);
}
