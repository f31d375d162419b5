/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_events.c: perf_event_open(2) and the attrs ringtrace opens: the event a
 * BPF program samples on, and the side-band event that tracks tasks and mmaps. */
#include "capture/perf_events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu, int group_fd,
		       unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  flags | PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

void perf_attr_cpu_clock(struct perf_event_attr *attr, const struct sample_rate *rate)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_CPU_CLOCK;
	if (rate->freq) {
		attr->freq = 1;
		attr->sample_freq = rate->freq;
	} else {
		attr->sample_period = rate->period;
	}
	attr->disabled = 1;
}

void perf_attr_tracking(struct perf_event_attr *attr, uint64_t sample_id_type,
			uint32_t wakeup_bytes, bool cgroups)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
	attr->sample_type = sample_id_type;
	attr->sample_id_all = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->mmap = 1;
	attr->mmap2 = 1;
	/* no attr->build_id: the kernel's flag for build-id MMAP2 records
	 * leaks into other perf events' MMAP2 records (misc is shared), which
	 * breaks other users' perf record; ringtrace reads build-ids itself */
	attr->task = 1;
	attr->cgroup = cgroups;
	attr->use_clockid = 1;
	attr->clockid = RINGTRACE_CLOCKID;
	attr->watermark = 1;
	attr->wakeup_watermark = wakeup_bytes;
	attr->disabled = 1;
}

uint64_t perf_max_sample_rate(void)
{
	unsigned long long v = 0;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}
