/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband.c: per-CPU tracking events whose COMM, MMAP2, FORK, EXIT (and the
 * kernel's LOST) records are read from their perf rings for replay into files. */
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

int sideband_open(struct sideband *sb, const struct cpu_list *cpus, uint64_t sample_id_type,
		  size_t data_pages, bool cgroups, bool mmap_data, bool wake_each_record,
		  char *err, size_t errlen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(sb, 0, sizeof(*sb));
	sb->cpus = calloc(cpus->nr, sizeof(*sb->cpus));
	if (!sb->cpus) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < cpus->nr; i++) {
		struct sideband_cpu *c = &sb->cpus[i];
		struct perf_event_attr attr;
		int fd, r;

		perf_attr_tracking(&attr, sample_id_type,
				   wake_each_record ? 1 : (uint32_t)(data_pages * page / 4), cgroups);
		attr.mmap_data = mmap_data;
		c->cpu = cpus->cpus[i];
		fd = perf_event_open_fd(&attr, -1, c->cpu, -1, 0);
		if (fd < 0) {
			rt_format(err, errlen, "cannot open the task-tracking event on CPU %d: %s",
				  c->cpu, strerror(-fd));
			sideband_close(sb);
			return fd;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id)) {
			int e = errno;

			rt_format(err, errlen, "cannot read the id of the task-tracking event: %s",
				  strerror(errno));
			close(fd);
			sideband_close(sb);
			return -e;
		}
		r = perf_ring_map(&c->ring, fd, data_pages);
		if (r) {
			rt_format(err, errlen, "cannot map the task-tracking ring of CPU %d (%zu pages): %s",
				  c->cpu, data_pages, strerror(-r));
			close(fd);
			sideband_close(sb);
			return r;
		}
		sb->nr++;
	}
	return 0;
}

static int ioctl_all(struct sideband *sb, unsigned long request)
{
	for (unsigned int i = 0; i < sb->nr; i++)
		if (ioctl(sb->cpus[i].ring.fd, request, 0))
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
	free(sb->cpus);
	memset(sb, 0, sizeof(*sb));
}
