/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_trace.c: runs a trace --summary session: the scope (pids, all, or a
 * command and its children), counting until it ends, then the summary. */
#include "record/syscall_trace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/syscall_summary.h"
#include "lib/log.h"
#include "record/syscall_table.h"
#include "record/workload.h"
#include "sys/privileges.h"
#include "sys/proc_stat.h"

/* Whether process pid still runs: a zombie waiting for its parent has ended. */
static bool alive(pid_t pid)
{
	struct proc_stat st;

	return !proc_stat_read((uint32_t)pid, &st) && st.state != 'Z' && st.state != 'X';
}

/* Whether any of the -p processes is still there. */
static bool any_alive(const struct syscall_trace_options *o)
{
	for (size_t i = 0; i < o->nr_pids; i++)
		if (alive(o->pids[i]))
			return true;
	return false;
}

/* Waits for the end: a signal, the command's exit, the -p processes'. */
static void wait_for_end(const struct syscall_trace_options *o, struct workload *w,
			 const sigset_t *mask)
{
	struct timespec second = { .tv_sec = 1 };

	for (;;) {
		int sig = sigtimedwait(mask, NULL, &second);

		if (sig == SIGINT || sig == SIGTERM)
			return;
		if (o->workload_argv && workload_poll(w))
			return;
		if (!o->workload_argv && !o->all && !any_alive(o))
			return;
	}
}

static int summarize(struct syscall_summary *s, const struct syscall_trace_options *o)
{
	struct syscall_summary_row *rows = NULL;
	struct rt_syscall_counters c;
	size_t nr = 0;
	char err[256];

	if (syscall_summary_read(s, &rows, &nr, &c, err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	syscall_table_print(rows, nr, o->histogram, o->table_on_stderr ? stderr : stdout);
	fflush(stdout);
	if (o->write_rows && o->write_rows(o->write_ctx, rows, nr)) {
		free(rows);
		return 1;
	}
	if (c.lost_calls || c.lost_starts || c.follow_failed)
		rt_error("not counted: %llu calls (a full map of processes and syscalls), "
			 "%llu not timed (a full map of threads), %llu children not followed",
			 (unsigned long long)c.lost_calls, (unsigned long long)c.lost_starts,
			 (unsigned long long)c.follow_failed);
	free(rows);
	return 0;
}

int syscall_trace_run(const struct syscall_trace_options *o)
{
	struct syscall_summary_scope scope = {
		.all = o->all,
		.tgids = o->pids,
		.nr_tgids = o->nr_pids,
		/* alone, the command is the target; with -a or -p, the duration */
		.follow_forks = o->workload_argv && !o->all && !o->nr_pids,
	};
	struct syscall_summary *s = NULL;
	struct workload w = { .pid = -1 };
	sigset_t mask, orig_mask;
	char err[512];
	int status = 1;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &orig_mask);
	/* as record's: before any command runs, one line naming what is missing */
	if (privileges_check("trace", err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	if (o->workload_argv) {
		if (workload_prepare(&w, o->workload_argv, &orig_mask, err, sizeof(err))) {
			rt_error("%s", err);
			goto out;
		}
		if (scope.follow_forks)
			scope.command = w.pid;
	}
	if (!(s = syscall_summary_start(&scope, err, sizeof(err)))) {
		rt_error("%s", err);
		goto out;
	}
	if (o->workload_argv && workload_start(&w, o->workload_argv, err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	/* attached and started: what is left reads maps through their fds and
	 * /proc, which need no capability; dropped, as record drops them */
	if (privileges_drop_all(err, sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	wait_for_end(o, &w, &mask);
	status = summarize(s, o);
	if (!status && o->workload_argv) {
		workload_poll(&w);
		status = w.reaped ? workload_exit_code(&w) : 0;
	}
out:
	syscall_summary_stop(s);
	if (o->workload_argv && w.pid > 0)
		workload_stop(&w);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	return status;
}
