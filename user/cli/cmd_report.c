/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_report.c: "ringtrace report": parses the options and prints the report
 * of a recording to stdout. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "lib/options.h"
#include "report/recording_inputs.h"
#include "report/diff.h"
#include "report/report.h"
#include "report/unwind_check.h"
#include "sys/interrupt.h"
#include "sys/pager.h"

/* One option of report into the report_options at ctx; an enum options_result. */
static int report_option(void *ctx, int id, const char *arg)
{
	struct report_options *o = ctx;
	char err[1024];
	uint64_t v;

	switch ((enum report_option_id)id) {
	case REPORT_OPT_INPUT:
		o->input = arg;
		break;
	case REPORT_OPT_SORT:
		if (report_parse_sort(o, arg, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		o->sort_by_sym_first = o->keys[0] == REPORT_KEY_SYM;
		break;
	case REPORT_OPT_CALL_GRAPH:
		err[0] = '\0';
		if (report_parse_call_graph(o, arg, err, sizeof(err))) {
			rt_error("%s", err[0] ? err : "out of memory");
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case REPORT_OPT_COMM:
		o->comm_filter = arg;
		break;
	case REPORT_OPT_PID:
		o->pid_list = arg;
		break;
	case REPORT_OPT_TID:
		o->tid_list = arg;
		break;
	case REPORT_OPT_EVENT:
		o->event_filter = arg;
		break;
	case REPORT_OPT_CPU:
		o->cpu_filter = arg;
		break;
	case REPORT_OPT_CGROUP:
		o->cgroup_filter = arg;
		break;
	case REPORT_OPT_TIME:
		if (report_parse_time(o, arg, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case REPORT_OPT_CHILDREN:
		o->children = true;
		break;
	case REPORT_OPT_NO_CHILDREN:
		o->children = false;
		break;
	case REPORT_OPT_FOLDED:
		o->output = REPORT_FOLDED;
		break;
	case REPORT_OPT_FLAMEGRAPH:
		o->output = REPORT_FLAMEGRAPH;
		o->flamegraph_path = arg;
		break;
	case REPORT_OPT_PPROF:
		o->output = REPORT_PPROF;
		o->pprof_path = arg;
		break;
	case REPORT_OPT_TITLE:
		o->title = arg;
		break;
	case REPORT_OPT_WIDTH:
		if (option_parse_u64("--width", arg, 200, 100000, &v))
			return OPTIONS_USAGE_ERROR;
		o->width = (unsigned int)v;
		break;
	case REPORT_OPT_INVERTED:
		o->inverted = true;
		break;
	case REPORT_OPT_PERCENT_LIMIT:
		if (option_parse_percent("--percent-limit", arg, &o->percent_limit))
			return OPTIONS_USAGE_ERROR;
		/* perf's also the call graphs' threshold, read as a float */
		o->graph.threshold = (float)o->percent_limit;
		break;
	case REPORT_OPT_DIFF:
		o->diff_before = arg;
		break;
	case REPORT_OPT_UNWIND_CHECK:
		o->unwind_check = true;
		break;
	case REPORT_OPT_KALLSYMS:
		o->kallsyms = arg;
		break;
	case REPORT_OPT_KALLSYMS_CACHE:
		o->kallsyms_cache = arg;
		break;
	case REPORT_OPT_SYMFS:
		o->symfs = arg;
		break;
	case REPORT_OPT_SHOW_NR_SAMPLES:
		break; /* the table always has the Samples column */
	case REPORT_OPT_HEADER:
		o->header = true;
		break;
	case REPORT_OPT_HEADER_ONLY:
		o->header_only = true;
		break;
	case REPORT_OPT_STDIO:
		o->no_pager = true;
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = { .input = REPORT_DEFAULT_INPUT, .pid_filter = -1,
				    .graph.threshold = REPORT_GRAPH_DEFAULT_THRESHOLD };
	struct recording_inputs inputs = { 0 };
	struct pager pager = { 0 };
	char err[1024];
	int status, next;

	report_parse_sort(&o, REPORT_DEFAULT_SORT, err, sizeof(err));
	status = options_parse(&report_command, argc, argv, report_option, &o, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next < argc)
		o.input = argv[next];
	if (argc - next > 1 && (o.diff_before || o.unwind_check)) {
		rt_error("--diff and --unwind-check read one recording: name one output");
		return 2;
	}
	if ((o.title || o.width || o.inverted) && o.output != REPORT_FLAMEGRAPH) {
		rt_error("--title, --width and --inverted shape a flame graph: add --flamegraph FILE.svg");
		return 2;
	}
	if (o.unwind_check && (o.diff_before || o.output != REPORT_TABLE || o.children ||
			       o.event_filter || o.cpu_filter || o.cgroup_filter || o.time_filter)) {
		rt_error("--unwind-check prints its own table and takes only --comm, --pid and --tid: "
			 "drop the other options");
		return 2;
	}
	if ((o.header || o.header_only) &&
	    (o.unwind_check || o.diff_before || o.output != REPORT_TABLE)) {
		rt_error("--header and --header-only print the header before the table: drop "
			 "--folded, --flamegraph, --pprof, --diff and --unwind-check, or --header");
		return 2;
	}
	if (o.graph.shown && (o.unwind_check || o.diff_before || o.output != REPORT_TABLE)) {
		rt_error("-g prints call graphs under the table's rows: drop --folded, --flamegraph, "
			 "--pprof, --diff and --unwind-check, or -g");
		return 2;
	}
	/* one recording, several outputs of one, or a rotation's base name */
	if (!o.diff_before &&
	    recording_inputs_resolve(&inputs, argv + next, argc - next, o.input, err,
				     sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	o.inputs = inputs.paths;
	o.nr_inputs = inputs.nr;
	/* the table on a terminal through a pager, as perf report --stdio's, its
	 * first rows (perf's TUI shows a screen) */
	if (!o.unwind_check && !o.diff_before && o.output == REPORT_TABLE && !o.no_pager) {
		if (isatty(STDOUT_FILENO))
			o.max_rows = REPORT_TERMINAL_ROWS;
		pager_start(&pager);
	}
	kallsyms_cache_option_apply(o.kallsyms_cache, o.kallsyms);
	/* Ctrl-C while a recording is read: its reading stops, one line says so */
	interrupt_catch();
	if (o.unwind_check)
		status = report_unwind_check_run(&o, stdout, err, sizeof(err));
	else if (o.diff_before)
		status = report_diff_run(&o, stdout, err, sizeof(err));
	else
		status = report_run(&o, stdout, err, sizeof(err));
	if (interrupt_pending()) {
		interrupt_stopping();
		pager_finish(&pager);
		rt_error("report of %s interrupted (%s)", o.input, interrupt_name());
		interrupt_end();
	}
	pager_finish(&pager);
	recording_inputs_free(&inputs);
	if (status) {
		rt_error("%s", err);
		return status == REPORT_BAD_REQUEST ? 2 : 1;
	}
	return 0;
}
