/* SPDX-License-Identifier: GPL-2.0-only */
/* mapping_opener.h: one thread that keeps the two capabilities opening
 * /proc/PID/map_files takes (CAP_SYS_PTRACE, CAP_CHECKPOINT_RESTORE) after
 * the rest of the process dropped every one, and does nothing but open the
 * file a process maps at a range: it reads nothing a user gives. */
#ifndef RINGTRACE_MAPPING_OPENER_H
#define RINGTRACE_MAPPING_OPENER_H

#include <stdint.h>
#include <sys/stat.h>

/* Starts the thread (one per process), before the capabilities are dropped
 * (capabilities are a thread's: it keeps its own). 0, or -errno (-EPERM:
 * those capabilities are not ours to keep; nothing started). */
int mapping_opener_start(void);
/* The file pid maps at [start, end), opened by /proc/PID/map_files on that
 * thread, as safe_openat opens it (read-only, non-blocking, a regular file
 * only): an fd, or -errno; -ENOSYS when no thread was started. st, if not
 * NULL, gets its fstat. */
int mapping_opener_open(uint32_t pid, uint64_t start, uint64_t end, struct stat *st);
/* Ends the thread, if started. */
void mapping_opener_stop(void);

#endif
