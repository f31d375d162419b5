/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_trace.c: "ringtrace trace --summary [-p PID | -a | -- CMD]": checks the
 * command line and runs the syscall summary session. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "export/syscall_metrics.h"
#include "lib/byte_buffer.h"
#include "lib/full_io.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "lib/options.h"
#include "record/syscall_trace.h"
#include "sys/output_file.h"
#include "sys/syscall_names.h"

#define MAX_PIDS 1024

struct trace_cli {
	struct syscall_trace_options o;
	pid_t pids[MAX_PIDS];
	bool summary;
	const char *metrics_path;
	int metrics_fd;
};

/* --metrics FILE: the rows as Prometheus text. */
static int write_metrics(void *ctx, const struct syscall_summary_row *rows, size_t nr_rows)
{
	struct trace_cli *c = ctx;
	struct syscall_metric_row *m = calloc(nr_rows ? nr_rows : 1, sizeof(*m));
	char (*numbers)[16] = calloc(nr_rows ? nr_rows : 1, sizeof(*numbers));
	struct byte_buffer out = { 0 };
	int r = 1;

	if (!m || !numbers) {
		rt_error("--metrics: out of memory");
		goto out;
	}
	for (size_t i = 0; i < nr_rows; i++) {
		const char *name = syscall_name(rows[i].nr);

		snprintf(numbers[i], sizeof(numbers[i]), "%u", rows[i].nr);
		m[i] = (struct syscall_metric_row){ rows[i].tgid, rows[i].comm,
						    name ? name : numbers[i], &rows[i].stats };
	}
	if (syscall_metrics_render(m, nr_rows, &out)) {
		rt_error("--metrics: out of memory");
		goto out;
	}
	if (write_full(c->metrics_fd, out.data, out.len)) {
		rt_error("--metrics %s: cannot write: %s", c->metrics_path, strerror(errno));
		goto out;
	}
	r = 0;
out:
	byte_buffer_free(&out);
	free(numbers);
	free(m);
	return r;
}

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
	case TRACE_OPT_METRICS:
		if (arg[0] == '-' && arg[1]) {
			rt_error("--metrics needs a FILE (or - for stdout), not %s", arg);
			return OPTIONS_USAGE_ERROR;
		}
		c->metrics_path = arg;
		c->o.write_rows = write_metrics;
		c->o.write_ctx = c;
		break;
	}
	return OPTIONS_CONTINUE;
}

/* Without -s: one line saying that trace prints perf trace -s's summary,
 * not each call as perf trace does, and the command line with -s (and a
 * command, if it had no target). */
static void say_summary_needed(int argc, char **argv, bool has_target)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	if (!f) {
		rt_error("trace prints perf trace -s's summary, not each call: add -s");
		return;
	}
	fputs("ringtrace trace -s", f);
	for (int i = 1; i < argc; i++) {
		/* quoted as a shell would need it */
		if (argv[i][0] && !argv[i][strspn(argv[i], "abcdefghijklmnopqrstuvwxyz"
							     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
							     "0123456789_-+=.,:/@%")]) {
			fprintf(f, " %s", argv[i]);
			continue;
		}
		fputs(" '", f);
		for (const char *p = argv[i]; *p; p++)
			fputs(*p == '\'' ? "'\\''" : (char[]){ *p, 0 }, f);
		fputc('\'', f);
	}
	if (!has_target)
		fputs(" -- CMD", f);
	fclose(f);
	rt_error("trace prints perf trace -s's summary, not each call as perf trace does: run %s",
		 line);
	free(line);
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
		say_summary_needed(argc, argv, next < argc || c.o.all || c.o.nr_pids);
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
	/* the file made before the session: a bad path is bad input, exit 2 */
	if (c.metrics_path) {
		char err[512];

		c.metrics_fd = strcmp(c.metrics_path, "-")
				       ? output_path_replace(c.metrics_path, true, err, sizeof(err))
				       : STDOUT_FILENO;
		if (c.metrics_fd < 0) {
			rt_error("--metrics %s: %s", c.metrics_path, err);
			return 2;
		}
		/* stdout the metrics' alone, for promtool or a scrape */
		c.o.table_on_stderr = c.metrics_fd == STDOUT_FILENO;
	}
	status = syscall_trace_run(&c.o);
	if (c.metrics_path && c.metrics_fd != STDOUT_FILENO)
		close(c.metrics_fd);
	return status;
}
