/* SPDX-License-Identifier: GPL-2.0-only */
/* process_stats.h: this process's own CPU time, memory, descriptors (and
 * their limit, raised) and start time, read from /proc as the Prometheus
 * client libraries read them for their process_* metrics. */
#ifndef RINGTRACE_PROCESS_STATS_H
#define RINGTRACE_PROCESS_STATS_H

#include <stdint.h>

struct process_stats {
	uint64_t cpu_ns;            /* user + system, every thread */
	uint64_t resident_bytes;
	uint64_t virtual_bytes;
	uint64_t max_virtual_bytes; /* RLIMIT_AS (soft); UINT64_MAX: no limit */
	uint64_t open_fds;
	uint64_t max_fds;           /* RLIMIT_NOFILE (soft); UINT64_MAX: no limit */
	uint64_t start_time_ms;     /* since the epoch */
};

/* 0, or -errno if /proc/self/stat or /proc/stat could not be read. */
int process_stats_read(struct process_stats *s);

/* Process pid's CPU time (user + system, every thread) and resident memory,
 * from its stat line (readable without ptrace rights): 0, or -errno (ESRCH,
 * ENOENT: it has gone). */
int process_cpu_and_memory(uint32_t pid, uint64_t *cpu_ns, uint64_t *resident_bytes);

/* The descriptors this process has open. */
uint64_t process_open_fds(void);
/* RLIMIT_NOFILE's soft limit raised to want (up to the hard limit) if it is
 * lower; the soft limit then: UINT64_MAX if none, 0 if it cannot be read. */
uint64_t process_raise_fd_limit(uint64_t want);

#endif
