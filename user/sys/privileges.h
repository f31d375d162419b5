/* SPDX-License-Identifier: GPL-2.0-only */
/* privileges.h: the capabilities ringtrace needs, checked up front with
 * libcap (one line naming what is missing and how to grant it), and dropped
 * once everything is loaded, attached and opened. */
#ifndef RINGTRACE_PRIVILEGES_H
#define RINGTRACE_PRIVILEGES_H

#include <stddef.h>

/* Whether the effective set holds CAP_BPF and CAP_PERFMON. 0, or -errno with err
 * naming the missing ones and how to grant them ("what" needs them). */
int privileges_check(const char *what, char *err, size_t errlen);

/* Clears every capability (effective, permitted, inheritable, ambient) and
 * checks that none is left. 0, or -errno with err set. */
int privileges_drop_all(char *err, size_t errlen);

/* As privileges_drop_all, but for CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH,
 * kept (permitted and effective) where they are held: what reads the
 * mappings (/proc/PID/maps, map_files, root) and files of processes of other
 * users, of more capabilities or of other mount namespaces, never writes.
 * 0, or -errno with err set. */
int privileges_drop_all_but_reading(char *err, size_t errlen);

/* What a failed bpf() or perf_event_open() with errno err most likely means,
 * as a cause and fix to append to the error line: the capabilities this
 * process lacks and the setcap line that grants them; or, where it holds
 * them, for EPERM, that something else refused it ("" for EACCES then, the
 * verifier's, and for an errno other than EPERM and EACCES). */
const char *privileges_hint(int err);
/* The calling thread's capabilities made CAP_SYS_PTRACE alone, where it is
 * permitted, else none (a thread reading other processes' memory: those of
 * ringtrace's own user are read then), before the process drops them: 0,
 * or -EPERM if they could not be set so (the thread is to read nothing). */
int privileges_thread_keep_ptrace(void);

#endif
