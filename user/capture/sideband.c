/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband.c: per-CPU tracking events (of every task, of a recording's tasks,
 * or of its cgroup) whose COMM, MMAP2, FORK, EXIT (and the kernel's LOST)
 * records are read from their perf rings for replay into files. */
#include "capture/sideband.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "capture/perf_events.h"
#include "format/perf_record.h"
#include "lib/log.h"

/* the side-band ring is released a page at a time, as the sample rings are */
#define SIDEBAND_RELEASE_BYTES 4096

/* Reads fd's id into sb's list; 0 or -errno. */
static int note_id(struct sideband *sb, int fd, uint64_t *id, char *err, size_t errlen)
{
	if (ioctl(fd, PERF_EVENT_IOC_ID, id)) {
		int e = errno;

		rt_format(err, errlen, "cannot read the id of the task-tracking event: %s",
			  strerror(e));
		return -e;
	}
	sb->ids[sb->nr_ids++] = *id;
	return 0;
}

/* Maps the ring of fd as slot sb->nr's (then counted); closes fd if not. */
static int map_ring(struct sideband *sb, int fd, size_t data_pages, char *err, size_t errlen)
{
	struct sideband_cpu *c = &sb->cpus[sb->nr];
	int r = perf_ring_map(&c->ring, fd, data_pages);

	if (r) {
		rt_format(err, errlen, "cannot map the task-tracking ring of CPU %d (%zu pages): %s",
			  c->cpu, data_pages, strerror(-r));
		close(fd);
		return r;
	}
	sb->nr++;
	return 0;
}

/* The tracking events of slot sb->nr (its cpu set): one of every task, or of
 * scope's cgroup, or one per task of scope's, each after the first writing
 * into the first one's ring (which must be mapped by then). 0, -ESRCH if
 * every task had exited, or -errno. */
static int open_cpu(struct sideband *sb, struct perf_event_attr *attr,
		    const struct sideband_scope *scope, size_t data_pages, char *err, size_t errlen)
{
	struct sideband_cpu *c = &sb->cpus[sb->nr];
	int ring_fd = -1, fd, r;
	uint64_t id;

	if (!scope || !scope->nr_tids) {
		bool cgroup = scope && scope->cgroup_fd >= 0;

		fd = perf_event_open_fd(attr, cgroup ? scope->cgroup_fd : -1, c->cpu, -1,
					cgroup ? PERF_FLAG_PID_CGROUP : 0);
		if (fd < 0) {
			rt_format(err, errlen, "cannot open the task-tracking event on CPU %d: %s",
				  c->cpu, strerror(-fd));
			return fd;
		}
		if ((r = note_id(sb, fd, &c->id, err, errlen))) {
			close(fd);
			return r;
		}
		return map_ring(sb, fd, data_pages, err, errlen);
	}
	for (unsigned int t = 0; t < scope->nr_tids; t++) {
		fd = perf_event_open_fd(attr, scope->tids[t], c->cpu, -1, 0);
		if (fd == -ESRCH)
			continue; /* exited meanwhile: nothing of it to read */
		if (fd < 0) {
			rt_format(err, errlen, "cannot open the task-tracking event of %d on CPU %d: %s",
				  scope->tids[t], c->cpu, strerror(-fd));
			return fd;
		}
		if ((r = note_id(sb, fd, ring_fd < 0 ? &c->id : &id, err, errlen))) {
			close(fd);
			return r;
		}
		if (ring_fd < 0) {
			if ((r = map_ring(sb, fd, data_pages, err, errlen)))
				return r;
			ring_fd = fd;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd)) {
			r = -errno;
			rt_format(err, errlen, "cannot join the task-tracking events of CPU %d: %s",
				  c->cpu, strerror(errno));
			close(fd);
			return r;
		}
		sb->task_fds[sb->nr_task_fds++] = fd;
	}
	if (ring_fd < 0)
		rt_format(err, errlen, "every process of the recording exited before it started");
	return ring_fd < 0 ? -ESRCH : 0;
}

int sideband_open(struct sideband *sb, const struct cpu_list *cpus,
		  const struct sideband_scope *scope, uint64_t sample_id_type, size_t data_pages,
		  bool cgroups, bool mmap_data, bool wake_each_record, char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned int per_cpu = scope && scope->nr_tids ? scope->nr_tids : 1;

	memset(sb, 0, sizeof(*sb));
	sb->cpus = calloc(cpus->nr, sizeof(*sb->cpus));
	sb->ids = calloc((size_t)cpus->nr * per_cpu, sizeof(*sb->ids));
	sb->task_fds = calloc((size_t)cpus->nr * per_cpu, sizeof(*sb->task_fds));
	if (!sb->cpus || !sb->ids || !sb->task_fds) {
		sideband_close(sb);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cpus->nr; i++) {
		struct perf_event_attr attr;
		int r;

		perf_attr_tracking(&attr, sample_id_type,
				   wake_each_record ? 1 : (uint32_t)(data_pages * page / 4), cgroups);
		attr.mmap_data = mmap_data;
		/* as perf's per-task events: what the tasks fork is followed;
		 * from now on, not from the start's end (which takes seconds
		 * of a BPF load), as the sampler follows them from now on */
		attr.inherit = scope && scope->nr_tids && scope->inherit;
		attr.disabled = !(scope && scope->nr_tids);
		sb->cpus[sb->nr].cpu = cpus->cpus[i];
		if ((r = open_cpu(sb, &attr, scope, data_pages, err, errlen))) {
			sideband_close(sb);
			return r;
		}
	}
	return 0;
}

static int ioctl_all(struct sideband *sb, unsigned long request)
{
	for (unsigned int i = 0; i < sb->nr; i++)
		if (ioctl(sb->cpus[i].ring.fd, request, 0))
			return -errno;
	for (unsigned int i = 0; i < sb->nr_task_fds; i++)
		if (ioctl(sb->task_fds[i], request, 0))
			return -errno;
	return 0;
}

int sideband_enable(struct sideband *sb)
{
	return ioctl_all(sb, PERF_EVENT_IOC_ENABLE);
}

int sideband_disable(struct sideband *sb)
{
	return ioctl_all(sb, PERF_EVENT_IOC_DISABLE);
}

struct drain_ctx {
	struct sideband_cpu *cpu;
	unsigned int slot;
	sideband_record_fn fn;
	void *ctx;
};

static int on_ring_record(void *p, const struct perf_event_header *rec)
{
	struct drain_ctx *d = p;

	if (rec->type == PERF_RECORD_LOST) {
		struct perf_lost lost;

		if (!perf_lost_decode(rec, &lost))
			d->cpu->lost += lost.lost;
	}
	if (d->fn(d->ctx, d->slot, rec, rec->size))
		return -1;
	d->cpu->records++;
	return 0;
}

long sideband_drain(struct sideband *sb, unsigned int i, sideband_record_fn fn, void *ctx)
{
	struct drain_ctx d = { &sb->cpus[i], i, fn, ctx };

	return perf_ring_drain(&sb->cpus[i].ring, SIDEBAND_RELEASE_BYTES, on_ring_record, &d);
}

void sideband_close(struct sideband *sb)
{
	for (unsigned int i = 0; i < sb->nr; i++) {
		int fd = sb->cpus[i].ring.fd;

		perf_ring_unmap(&sb->cpus[i].ring);
		close(fd);
	}
	/* (after the rings they wrote into: each holds its ring's buffer) */
	for (unsigned int i = 0; i < sb->nr_task_fds; i++)
		close(sb->task_fds[i]);
	free(sb->cpus);
	free(sb->ids);
	free(sb->task_fds);
	memset(sb, 0, sizeof(*sb));
}
