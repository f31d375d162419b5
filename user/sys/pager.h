/* SPDX-License-Identifier: GPL-2.0-only */
/* pager.h: a command's output through a pager when stdout is a terminal, as
 * perf and git page theirs: $PAGER (empty or "cat": none), else less with
 * LESS=FRX unless LESS is set, when it is installed. */
#ifndef RINGTRACE_PAGER_H
#define RINGTRACE_PAGER_H

#include <sys/types.h>

struct pager {
	pid_t pid; /* 0: no pager, stdout as it was */
};

/* Puts stdout through the pager if stdout is a terminal and one can start;
 * otherwise leaves stdout alone. */
void pager_start(struct pager *p);
/* Flushes and closes stdout, then waits for the pager to exit. */
void pager_finish(struct pager *p);

#endif
