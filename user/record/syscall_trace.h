/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_trace.h: a trace --summary session: the scope (pids, all, or a
 * command and its children), counting until it ends, then the summary. */
#ifndef RINGTRACE_SYSCALL_TRACE_H
#define RINGTRACE_SYSCALL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "capture/syscall_summary.h"

struct syscall_trace_options {
	bool all;             /* -a */
	pid_t *pids;          /* -p, or NULL */
	size_t nr_pids;
	char **workload_argv; /* -- CMD ARGS, or NULL */
	bool histogram;       /* --histogram */
	bool table_on_stderr; /* stdout holds --metrics - */
	/* Called with the rows after the summary is printed (--metrics), or NULL:
	 * 0, or non-zero after one line saying why. */
	int (*write_rows)(void *ctx, const struct syscall_summary_row *rows, size_t nr_rows);
	void *write_ctx;
};

/* Counts until SIGINT/SIGTERM, the command's exit, or the -p processes'
 * exit, then prints the summary on stdout. The exit status: 0, 1 after a
 * runtime failure (one line said why), or the command's (as record). */
int syscall_trace_run(const struct syscall_trace_options *o);

#endif
