/* SPDX-License-Identifier: GPL-2.0-only */
/* sideband.h: per-CPU tracking events (of every task, of a recording's tasks,
 * or of its cgroup) whose COMM, MMAP2, FORK, EXIT (and the kernel's LOST)
 * records are read from their perf rings for replay into files. */
#ifndef RINGTRACE_SIDEBAND_H
#define RINGTRACE_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/perf_ring.h"
#include "sys/cpu_list.h"

struct sideband_cpu {
	int cpu;
	uint64_t id;      /* the kernel's id of this CPU's tracking event */
	struct perf_ring ring;
	uint64_t records; /* records read */
	uint64_t lost;    /* records the kernel dropped (sum of its LOST records) */
};

struct sideband {
	struct sideband_cpu *cpus;
	unsigned int nr;
	uint64_t *ids;      /* every tracking event's id: cpus' and those of tasks */
	unsigned int nr_ids;
	int *task_fds;      /* the events of tasks past the first, writing into a
			     * CPU's ring (PERF_EVENT_IOC_SET_OUTPUT) */
	unsigned int nr_task_fds;
};

/* Whose side-band is read: every task's (NULL scope), a list of tasks' (their
 * children's too if inherit), or a cgroup's (its descendants' too). */
struct sideband_scope {
	const int *tids;    /* tasks, each followed on every CPU */
	unsigned int nr_tids;
	bool inherit;       /* ...and what they fork from now on */
	int cgroup_fd;      /* or a cgroup v2 directory (when no tids), -1: none */
};

/* Opens one tracking event per CPU of cpus (disabled) with data_pages pages of
 * ring each, of the tasks or cgroup of scope as perf's are (one event per task
 * and CPU, the task's own ring per CPU; tasks that exited meanwhile are left
 * out, -ESRCH if all did; enabled at once, what they fork followed from now),
 * or of every task if scope is NULL (then disabled); CGROUP records too if cgroups, MMAP2 records of mappings that
 * are not executable too if mmap_data (--call-graph dwarf: perf's unwinder
 * reads a binary's .eh_frame_hdr through them). wake_each_record: the reader
 * is woken at every record, not at a quarter of the ring (the in-kernel
 * unwinder waits for MMAP2). Returns 0, or -errno with err set. */
int sideband_open(struct sideband *sb, const struct cpu_list *cpus,
		  const struct sideband_scope *scope, uint64_t sample_id_type, size_t data_pages,
		  bool cgroups, bool mmap_data, bool wake_each_record, char *err, size_t errlen);
int sideband_enable(struct sideband *sb);
int sideband_disable(struct sideband *sb);

/* Called with each record of CPU slot i; non-zero stops the drain. */
typedef int (*sideband_record_fn)(void *ctx, unsigned int i, const void *rec, size_t size);

/* Reads every waiting record of slot i. Returns records read or -errno. */
long sideband_drain(struct sideband *sb, unsigned int i, sideband_record_fn fn, void *ctx);
void sideband_close(struct sideband *sb);

#endif
