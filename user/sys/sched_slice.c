/* SPDX-License-Identifier: GPL-2.0-only */
/* sched_slice.c: the calling thread's fair-scheduler slice, by sched_setattr's
 * sched_runtime (which Linux 6.12's EEVDF reads as the slice asked for). */
#include "sys/sched_slice.h"

#include <errno.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <sys/syscall.h>
#include <unistd.h>

int sched_slice_set(uint64_t ns)
{
	struct sched_attr attr = { .size = sizeof(attr) };

	if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0))
		return -errno;
	if (attr.sched_policy != SCHED_NORMAL && attr.sched_policy != SCHED_BATCH)
		return -EPERM;
	/* (a kernel that keeps a fair task's slice says what it is) */
	if (!attr.sched_runtime)
		return -EOPNOTSUPP;
	attr.size = sizeof(attr);
	attr.sched_runtime = ns;
	/* not for the threads and processes it starts later; but that flag
	 * would also put a nice below 0 back to 0 for them: then they keep
	 * the slice and the nice */
	attr.sched_flags = attr.sched_nice >= 0 ? SCHED_FLAG_RESET_ON_FORK : 0;
	return syscall(SYS_sched_setattr, 0, &attr, 0) ? -errno : 0;
}
