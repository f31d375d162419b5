/* SPDX-License-Identifier: GPL-2.0-only */
/* membarrier.h: every CPU made to pass a full memory barrier, and every BPF
 * program running to end, from user space: membarrier's global command (the
 * kernel waits for a grace period of RCU). */
#ifndef RINGTRACE_MEMBARRIER_H
#define RINGTRACE_MEMBARRIER_H

#include <stdbool.h>

/* Whether the kernel offers the global command here (not where it cannot
 * wait for every CPU: nohz_full; not where seccomp or an old kernel refuses
 * the call). Asked once. */
bool membarrier_global_offered(void);
/* The barrier: 0, or -errno. Takes a grace period (milliseconds). */
int membarrier_global(void);

#endif
