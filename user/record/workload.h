/* SPDX-License-Identifier: GPL-2.0-only */
/* workload.h: runs the command given after "--": forked before recording
 * starts, held until the recording is ready, then exec'd. */
#ifndef RINGTRACE_WORKLOAD_H
#define RINGTRACE_WORKLOAD_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;   /* parent writes here to let the child exec */
	int exec_fd; /* child writes errno here if exec fails; EOF means it ran */
	int status;  /* wait status once reaped */
	int reaped;
};

/* Forks a child that waits, with signal mask child_mask, until workload_start;
 * 0, or -errno with err set. */
int workload_prepare(struct workload *w, char *const argv[], const sigset_t *child_mask,
		     char *err, size_t errlen);
/* Lets the child exec; returns 0 once exec succeeded, -errno (exec's) with err
 * if it failed. */
int workload_start(struct workload *w, char *const argv[], char *err, size_t errlen);
/* Reaps the child if it exited; returns 1 if it has, 0 if still running. */
int workload_poll(struct workload *w);
/* Terminates (SIGTERM) and reaps a child that is still running. */
void workload_stop(struct workload *w);
/* The shell's view of the exit: the status code, or 128 + signal. */
int workload_exit_code(const struct workload *w);

#endif
