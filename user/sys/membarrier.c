/* SPDX-License-Identifier: GPL-2.0-only */
/* membarrier.c: membarrier's global command, asked once whether offered. */
#include "sys/membarrier.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_once_t query_once = PTHREAD_ONCE_INIT;
static bool offered;

static void query(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);

	offered = cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL);
}

bool membarrier_global_offered(void)
{
	pthread_once(&query_once, query);
	return offered;
}

int membarrier_global(void)
{
	return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0) ? -errno : 0;
}
