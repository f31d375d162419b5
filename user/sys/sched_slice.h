/* SPDX-License-Identifier: GPL-2.0-only */
/* sched_slice.h: the calling thread's time slice under the kernel's fair
 * scheduler (EEVDF, Linux 6.12), shortened for a thread that must run soon
 * after it is woken: it then preempts the task running on the CPU it is
 * woken on, where it would wait out that task's slice. */
#ifndef RINGTRACE_SCHED_SLICE_H
#define RINGTRACE_SCHED_SLICE_H

#include <stdint.h>

/* The kernel's shortest slice (0.1 ms). */
#define SCHED_SLICE_SHORTEST_NS 100000u

/* Sets the calling thread's slice to ns (its policy and nice kept; threads
 * and processes it creates from now on get the default slice, but where its
 * nice is below 0: they then keep both): 0, or -errno. Left as it is on a
 * kernel before 6.12 (-EOPNOTSUPP), and where the thread is not of the fair
 * scheduler's normal or batch policy (-EPERM). */
int sched_slice_set(uint64_t ns);

#endif
