/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_ids.h: the processes /proc lists, or the threads of one process
 * (/proc/PID/task), one id at a time; the process a thread is of. */
#ifndef RINGTRACE_PROC_IDS_H
#define RINGTRACE_PROC_IDS_H

#include <stdint.h>

/* Calls each(id, arg) for every process (pid 0) or every thread of process
 * pid, as the directory lists them (one that starts or ends meanwhile may
 * be in or not), until each returns other than 0. Returns 0 when every id
 * was given, each's value when it stopped (make it positive), or -errno
 * when the directory cannot be read (pid gone: -ENOENT). */
int proc_each_id(uint32_t pid, int (*each)(uint32_t id, void *arg), void *arg);
/* The process (thread group) thread tid is of, from /proc/TID/status: 0,
 * or -errno (-ENOENT: it has gone). */
int proc_tgid_of(uint32_t tid, uint32_t *tgid);

#endif
