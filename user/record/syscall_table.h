/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_table.h: prints trace --summary's rows as perf trace -s prints its
 * summary: per process a header and a table of its syscalls, in msec. */
#ifndef RINGTRACE_SYSCALL_TABLE_H
#define RINGTRACE_SYSCALL_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "capture/syscall_summary.h"

/* Sorts rows (by process, then by total time) and prints them; with
 * histogram, each syscall's log2 latency histogram after its process's table. */
void syscall_table_print(struct syscall_summary_row *rows, size_t nr_rows, bool histogram,
			 FILE *out);

/* The relative standard deviation of the mean in percent, as perf's
 * rel_stddev_stats(stddev_stats()): 0 below two calls. */
double syscall_rel_stddev(const struct rt_syscall_stats *st);

#endif
