/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_stat.h: one process's /proc/PID/stat line, the kernel's, its fields
 * read after the comm's last ')' (a process names only its comm, which may
 * hold anything, spaces and parentheses too). */
#ifndef RINGTRACE_PROC_STAT_H
#define RINGTRACE_PROC_STAT_H

#include <stdint.h>

/* The fields of the line ringtrace reads (proc(5) numbers them). */
struct proc_stat {
	char state;           /* 3: R, S, D, Z (a zombie), X (dead), ... */
	uint32_t ppid;        /* 4 */
	uint64_t utime;       /* 14: clock ticks in user mode, every thread */
	uint64_t stime;       /* 15: in the kernel */
	uint64_t start_ticks; /* 22: since boot, in clock ticks */
	uint64_t vsize;       /* 23: bytes */
	int64_t rss;          /* 24: pages */
};

/* The stat line of process (or thread) id, 0 for this process: 0, or -errno
 * with errno set (ENOENT or ESRCH: it has gone). */
int proc_stat_read(uint32_t id, struct proc_stat *st);

#endif
