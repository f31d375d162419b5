/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_summary.h: trace --summary's BPF program (syscalls timed and
 * aggregated in the kernel per process and syscall): loaded, attached, read. */
#ifndef RINGTRACE_CAPTURE_SYSCALL_SUMMARY_H
#define RINGTRACE_CAPTURE_SYSCALL_SUMMARY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "syscall_stats.h"

struct syscall_summary_scope {
	bool all;            /* every process (ringtrace's own excepted) */
	const pid_t *tgids;  /* else these processes, with all their threads */
	size_t nr_tgids;
	pid_t command;       /* and this one (or 0) once it has exec'd */
	bool follow_forks;   /* and the children they fork from then on */
};

/* One (process, syscall), its CPUs' values added. */
struct syscall_summary_row {
	uint32_t tgid;
	uint32_t nr;
	char comm[16];
	struct rt_syscall_stats stats;
};

struct syscall_summary;

/* Loaded and attached: syscalls are counted from now on. NULL with err set. */
struct syscall_summary *syscall_summary_start(const struct syscall_summary_scope *scope,
					      char *err, size_t errlen);
/* Every (process, syscall) counted so far, in *rows (malloc'd, the caller
 * frees it), and the program's own counters; 0, or -errno with err set. */
int syscall_summary_read(struct syscall_summary *s, struct syscall_summary_row **rows,
			 size_t *nr_rows, struct rt_syscall_counters *counters, char *err,
			 size_t errlen);
/* Detaches and frees. */
void syscall_summary_stop(struct syscall_summary *s);

#endif
