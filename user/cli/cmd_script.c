/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_script.c: "ringtrace script": parses the options and prints every
 * record of a recording to stdout. */
#include <stdio.h>
#include <string.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/options.h"
#include "report/recording.h"
#include "report/recording_inputs.h"
#include "report/sample_filter.h"
#include "report/script.h"
#include "sys/interrupt.h"

/* One option of script into the script_options at ctx; an enum options_result. */
static int script_option(void *ctx, int id, const char *arg)
{
	struct script_options *o = ctx;
	char err[512];

	switch ((enum script_option_id)id) {
	case SCRIPT_OPT_FIELDS:
		if (!o->fields_set)
			script_fields_default(&o->fields);
		o->fields_set = true;
		if (script_fields_parse(&o->fields, arg, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case SCRIPT_OPT_NS:
		o->nanosecs = true;
		break;
	case SCRIPT_OPT_HIDE_CALL_GRAPH:
		o->no_callchain = true;
		break;
	case SCRIPT_OPT_SHOW_LOST_EVENTS:
		o->show_lost_events = true;
		break;
	case SCRIPT_OPT_SHOW_LOST_SAMPLES:
		o->show_lost_samples = true;
		break;
	case SCRIPT_OPT_INPUT:
		o->input = arg;
		break;
	case SCRIPT_OPT_KALLSYMS:
		o->kallsyms = arg;
		break;
	case SCRIPT_OPT_KALLSYMS_CACHE:
		o->kallsyms_cache = arg;
		break;
	case SCRIPT_OPT_SYMFS:
		o->symfs = arg;
		break;
	case SCRIPT_OPT_COMM:
		o->filter.comms = arg;
		break;
	case SCRIPT_OPT_PID:
		o->filter.pids = arg;
		break;
	case SCRIPT_OPT_TID:
		o->filter.tids = arg;
		break;
	case SCRIPT_OPT_CPU:
		o->filter.cpus = arg;
		break;
	case SCRIPT_OPT_TIME:
		o->filter.time = arg;
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_script(int argc, char **argv)
{
	struct script_options o = { .input = REPORT_DEFAULT_INPUT };
	struct recording_inputs inputs;
	struct sample_filter filter;
	char err[1024];
	int status, next;

	status = options_parse(&script_command, argc, argv, script_option, &o, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next < argc)
		o.input = argv[next];
	if (o.fields_set && script_fields_check(&o.fields, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	/* the filters' values checked before the recording is read */
	if (sample_filter_init(&filter, &o.filter, RECORDING_MAX_CPUS, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	sample_filter_free(&filter);
	/* one recording, several outputs of one, or a rotation's base name */
	if (recording_inputs_resolve(&inputs, argv + next, argc - next, o.input, err,
				     sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	o.inputs = inputs.paths;
	o.nr_inputs = inputs.nr;
	/* millions of lines: script_run formats them into big blocks itself
	 * (record by record on a terminal), which stdio passes on uncopied */
	setvbuf(stdout, NULL, _IONBF, 0);
	kallsyms_cache_option_apply(o.kallsyms_cache, o.kallsyms);
	/* Ctrl-C while the recording is read: its reading stops, one line says so */
	interrupt_catch();
	status = script_run(&o, stdout, err, sizeof(err));
	if (interrupt_pending()) {
		interrupt_stopping();
		fflush(stdout);
		rt_error("script of %s interrupted (%s)", o.input, interrupt_name());
		interrupt_end();
	}
	recording_inputs_free(&inputs);
	if (status) {
		rt_error("%s", err);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
