/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_trace.c: "ringtrace trace --summary [-p PID | -a | -- CMD]": checks the
 * command line and runs the syscall summary session. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "lib/options.h"
#include "record/syscall_trace.h"

#define MAX_PIDS 1024

struct trace_cli {
	struct syscall_trace_options o;
	pid_t pids[MAX_PIDS];
	bool summary;
};

/* -p PID[,PID...]: each a process that exists now. */
static int parse_pids(struct trace_cli *c, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int r = OPTIONS_CONTINUE;

	if (!copy)
		return OPTIONS_USAGE_ERROR;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t pid;

		if (option_parse_u64("-p", tok, 1, 4194304, &pid)) {
			r = OPTIONS_USAGE_ERROR;
			break;
		}
		if (kill((pid_t)pid, 0) && errno == ESRCH) {
			rt_error("-p %s: no process %s: give the pid of a running process", arg, tok);
			r = OPTIONS_USAGE_ERROR;
			break;
		}
		if (c->o.nr_pids == MAX_PIDS) {
			rt_error("-p %s: more than %d processes: trace fewer, or all with -a", arg,
				 MAX_PIDS);
			r = OPTIONS_USAGE_ERROR;
			break;
		}
		c->pids[c->o.nr_pids++] = (pid_t)pid;
	}
	if (r == OPTIONS_CONTINUE && !c->o.nr_pids) {
		rt_error("-p needs a pid: -p PID[,PID...]");
		r = OPTIONS_USAGE_ERROR;
	}
	free(copy);
	return r;
}

/* One option of trace into the struct trace_cli at ctx; an enum options_result. */
static int trace_option(void *ctx, int id, const char *arg)
{
	struct trace_cli *c = ctx;

	switch ((enum trace_option_id)id) {
	case TRACE_OPT_SUMMARY:
		c->summary = true;
		break;
	case TRACE_OPT_ALL_CPUS:
		c->o.all = true;
		break;
	case TRACE_OPT_PID:
		return parse_pids(c, arg);
	case TRACE_OPT_HISTOGRAM:
		c->o.histogram = true;
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_trace(int argc, char **argv)
{
	static struct trace_cli c;
	int status, next;

	memset(&c, 0, sizeof(c));
	c.o.pids = c.pids;
	status = options_parse(&trace_command, argc, argv, trace_option, &c, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (!c.summary) {
		rt_error("trace prints only a summary for now: add --summary (-s)");
		return 2;
	}
	if (next < argc)
		c.o.workload_argv = argv + next;
	if (c.o.all && c.o.nr_pids) {
		rt_error("-a and -p both give the processes to trace: give one of them");
		return 2;
	}
	if (!c.o.all && !c.o.nr_pids && !c.o.workload_argv) {
		rt_error("trace --summary needs a target: -p PID, -a, or -- CMD ARGS");
		return 2;
	}
	return syscall_trace_run(&c.o);
}
