/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_record.c: "ringtrace record" and "ringtrace list": parse and check the
 * options, then hand them to the recording session. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "capture/event_spec.h"
#include "capture/perf_events.h"
#include "capture/trace_filter.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "export/metrics_server.h"
#include "export/metrics_sink.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "lib/options.h"
#include "record/probe_resolve.h"
#include "record/record.h"
#include "record/unwind_cache.h"
#include "symbols/sdt_notes.h"

#define DEFAULT_SIDEBAND_PAGES 64  /* 256 KiB per CPU */
#define METRICS_TOP_COMMS 20       /* comms named by --metrics, as export's default */

/* What the options set, and what checking them needs. */
struct record_command_line {
	struct record_options o;
	const char *metrics_listen; /* --metrics */
	bool freq_given;
	bool off_cpu_min_given;
	uint64_t exit_with_parent; /* the parent's pid, or 0 */
	bool denied; /* an option stopped by a permission (tracefs root's): exit 1, not 2 */
};

static int is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

int cmd_list(int argc, char **argv)
{
	int next, status = options_parse(&list_command, argc, argv, NULL, NULL, &next);

	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next + 1 == argc && (!strncmp(argv[next], "uprobe:", 7) || !strncmp(argv[next], "usdt:", 5))) {
		char err[512];

		if (probe_list_print(argv[next], stdout, err, sizeof(err))) {
			rt_error("%s", err);
			return 2;
		}
		return 0;
	}
	if (event_list_print(stdout, argv + next, argc - next)) {
		rt_error("out of memory listing the events");
		return 1;
	}
	return 0;
}

/* --call-graph ehframe | fp | dwarf[,SIZE] | ehframe+dwarf[,SIZE], as perf
 * parses it: SIZE rounded up to a multiple of 8. */
static int parse_call_graph(struct record_options *o, const char *arg)
{
	uint64_t size = RT_STACK_USER_DEFAULT;
	const char *dwarf = arg;

	o->unwind_ehframe = false;
	if (!strcmp(arg, "fp") || !strcmp(arg, "ehframe")) {
		o->callchain = true;
		o->stack_user = 0;
		o->unwind_ehframe = !strcmp(arg, "ehframe");
		return OPTIONS_CONTINUE;
	}
	/* both in each sample, for report --unwind-check */
	if (!strncmp(arg, "ehframe+", 8))
		dwarf = arg + 8;
	if (strncmp(dwarf, "dwarf", 5) || (dwarf[5] && dwarf[5] != ',')) {
		rt_error("unknown --call-graph mode \"%s\": use ehframe, fp, dwarf[,SIZE] or "
			 "ehframe+dwarf[,SIZE]", arg);
		return OPTIONS_USAGE_ERROR;
	}
	if (dwarf[5] && option_parse_u64("--call-graph dwarf,SIZE", dwarf + 6, 1,
					 RT_STACK_USER_MAX, &size))
		return OPTIONS_USAGE_ERROR;
	o->callchain = true;
	o->stack_user = (uint32_t)((size + 7) & ~7ULL);
	o->unwind_ehframe = dwarf != arg;
	return OPTIONS_CONTINUE;
}

/* One option of record into cl; an enum options_result. */
static int record_option(void *ctx, int id, const char *arg)
{
	struct record_command_line *cl = ctx;
	struct record_options *o = &cl->o;
	char err[512];
	uint64_t v;
	int r;

	switch ((enum record_option_id)id) {
	case RECORD_OPT_EVENT:
		if (!strcmp(arg, "list")) {
			if (event_list_print(stdout, NULL, 0))
				rt_error("out of memory listing the events");
			return OPTIONS_DONE;
		}
		if ((r = event_spec_parse(arg, o->events, &o->nr_events, err, sizeof(err)))) {
			rt_error("%s", err);
			cl->denied = r == -EACCES || r == -EPERM;
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case RECORD_OPT_FILTER:
		if (trace_filter_attach(o->events, o->nr_events, arg, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case RECORD_OPT_ALL_CPUS:
		o->system_wide = true;
		break;
	case RECORD_OPT_CPU:
		o->cpu_list = arg;
		break;
	case RECORD_OPT_PID:
		o->pid_list = arg;
		break;
	case RECORD_OPT_TID:
		o->tid_list = arg;
		break;
	case RECORD_OPT_PER_THREAD:
		o->per_thread = true;
		break;
	case RECORD_OPT_NO_INHERIT:
		o->no_inherit = true;
		break;
	case RECORD_OPT_CGROUP:
		o->cgroup = arg;
		break;
	case RECORD_OPT_CGROUP_EXACT:
		o->cgroup_exact = true;
		break;
	case RECORD_OPT_ALL_CGROUPS:
		o->all_cgroups = true;
		break;
	case RECORD_OPT_FREQ:
		if (parse_sample_freq(arg, &v))
			return OPTIONS_USAGE_ERROR;
		o->rate.freq = v;
		cl->freq_given = true;
		break;
	case RECORD_OPT_COUNT:
		if (option_parse_u64("-c", arg, 1, UINT64_MAX >> 1, &v))
			return OPTIONS_USAGE_ERROR;
		o->rate.period = v;
		o->period_given = true;
		break;
	case RECORD_OPT_CALL_GRAPH:
		o->callchain = true;
		o->stack_user = 0;
		o->unwind_ehframe = true;
		break;
	case RECORD_OPT_UNWIND_MEM:
		if (option_parse_size("--unwind-mem", arg, 64 << 10, 1ULL << 32, &v))
			return OPTIONS_USAGE_ERROR;
		o->unwind_mem = v;
		break;
	case RECORD_OPT_UNWIND_TABLES:
		if (strcmp(arg, "mapped") && strcmp(arg, "sampled")) {
			rt_error("--unwind-tables takes mapped or sampled, not '%s'", arg);
			return OPTIONS_USAGE_ERROR;
		}
		o->unwind_sampled = !strcmp(arg, "sampled");
		break;
	case RECORD_OPT_STACK_COPY_BUDGET:
		if (option_parse_size("--stack-copy-budget", arg, 0, UINT32_MAX, &v))
			return OPTIONS_USAGE_ERROR;
		o->stack_copy_budget = v;
		break;
	case RECORD_OPT_USDT_SITES:
		if (option_parse_u64("--usdt-sites", arg, 1, SDT_NOTES_MAX, &v))
			return OPTIONS_USAGE_ERROR;
		o->usdt_sites = (uint32_t)v;
		break;
	case RECORD_OPT_COPY_BUDGET:
		if (option_parse_size("--copy-budget", arg, 0, 1ULL << 40, &v))
			return OPTIONS_USAGE_ERROR;
		o->copy_budget = v;
		break;
	case RECORD_OPT_UNWIND_CACHE:
		if (!arg[0]) {
			rt_error("--unwind-cache needs a directory, or none");
			return OPTIONS_USAGE_ERROR;
		}
		o->unwind_cache = strcmp(arg, "none") ? arg : NULL;
		break;
	case RECORD_OPT_UNWIND_CACHE_SIZE:
		if (!strcmp(arg, "0")) {
			rt_error("--unwind-cache-size 0 would keep nothing: give --unwind-cache none");
			return OPTIONS_USAGE_ERROR;
		}
		if (option_parse_size("--unwind-cache-size", arg, UNWIND_CACHE_MIN_SIZE, 1ULL << 40,
				      &v))
			return OPTIONS_USAGE_ERROR;
		o->unwind_cache_size = v;
		break;
	case RECORD_OPT_CALL_GRAPH_MODE:
		return parse_call_graph(o, arg);
	case RECORD_OPT_OUTPUT:
		if (!arg[0]) {
			rt_error("-o needs a directory name");
			return OPTIONS_USAGE_ERROR;
		}
		o->output = arg;
		break;
	case RECORD_OPT_MMAP_PAGES:
		if (option_parse_u64("-m", arg, 1, RECORD_MAX_RING_PAGES, &v))
			return OPTIONS_USAGE_ERROR;
		if (!is_power_of_two(v)) {
			rt_error("invalid value \"%s\" for -m: the ring size in pages must be a power of two",
				 arg);
			return OPTIONS_USAGE_ERROR;
		}
		o->ring_pages = (size_t)v;
		break;
	case RECORD_OPT_TRANSPORT:
		if (!strcmp(arg, "ringbuf")) {
			o->transport = TRANSPORT_RINGBUF;
		} else if (!strcmp(arg, "perfbuf")) {
			o->transport = TRANSPORT_PERFBUF;
		} else if (!strcmp(arg, "ring")) {
			o->transport = TRANSPORT_RING;
		} else {
			rt_error("unknown transport \"%s\": use ringbuf, perfbuf or ring", arg);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case RECORD_OPT_STAGING_SIZE:
		if (option_parse_size("--staging-size", arg, 64 << 10, 1ULL << 34, &v))
			return OPTIONS_USAGE_ERROR;
		if (!is_power_of_two(v)) {
			rt_error("invalid size \"%s\" for --staging-size: it must be a power of two",
				 arg);
			return OPTIONS_USAGE_ERROR;
		}
		o->staging_bytes = (size_t)v;
		break;
	case RECORD_OPT_DEBUG_DRAIN_DELAY:
		if (option_parse_u64("--debug-drain-delay-ms", arg, 0, 60000, &v))
			return OPTIONS_USAGE_ERROR;
		o->debug_drain_delay_ms = (unsigned int)v;
		break;
	case RECORD_OPT_DEBUG_LOCKED_CLAIMS:
		o->debug_locked_claims = true;
		break;
	case RECORD_OPT_DEBUG_FULL_STEPS:
		o->debug_full_steps = true;
		break;
	case RECORD_OPT_DEBUG_WRITER_DELAY:
		if (option_parse_u64("--debug-writer-delay-ms", arg, 0, 60000, &v))
			return OPTIONS_USAGE_ERROR;
		o->debug_writer_delay_ms = (unsigned int)v;
		break;
	case RECORD_OPT_DEBUG_START_DELAY:
		if (option_parse_u64("--debug-start-delay-ms", arg, 0, 60000, &v))
			return OPTIONS_USAGE_ERROR;
		o->debug_start_delay_ms = (unsigned int)v;
		break;
	case RECORD_OPT_DEBUG_START_TABLES_DELAY:
		if (option_parse_u64("--debug-start-tables-delay-ms", arg, 0, 60000, &v))
			return OPTIONS_USAGE_ERROR;
		o->debug_start_tables_delay_ms = (unsigned int)v;
		break;
	case RECORD_OPT_FORCE:
		o->force = true;
		break;
	case RECORD_OPT_OVERWRITE:
		o->overwrite = true;
		break;
	case RECORD_OPT_SNAPSHOTS_OVERLAP:
		o->snapshots_overlap = true;
		break;
	case RECORD_OPT_MAX_SNAPSHOTS:
		if (option_parse_u64("--max-snapshots", arg, 1, 999, &v))
			return OPTIONS_USAGE_ERROR;
		o->max_snapshots = (unsigned int)v;
		break;
	case RECORD_OPT_TRIGGER:
		if (!strchr(arg, ':') || strchr(arg, ',')) {
			rt_error("invalid --trigger \"%s\": give one tracepoint as SYSTEM:NAME, e.g. sched:sched_process_exit",
				 arg);
			return OPTIONS_USAGE_ERROR;
		}
		o->trigger_event = arg;
		break;
	case RECORD_OPT_QUIET:
		o->quiet = true;
		break;
	case RECORD_OPT_EXIT_WITH_PARENT:
		if (option_parse_u64("--exit-with-parent", arg, 1, INT32_MAX, &cl->exit_with_parent))
			return OPTIONS_USAGE_ERROR;
		break;
	case RECORD_OPT_KEEP_CAPS:
		o->keep_caps = true;
		break;
	case RECORD_OPT_KEEP_READ_CAPS:
		o->keep_read_caps = true;
		break;
	case RECORD_OPT_METRICS:
		if (!metrics_listen_valid(arg)) {
			rt_error("invalid --metrics \"%s\": give ADDR:PORT, e.g. %s", arg,
				 METRICS_DEFAULT_LISTEN);
			return OPTIONS_USAGE_ERROR;
		}
		cl->metrics_listen = arg;
		/* every sample names its cgroup */
		o->all_cgroups = true;
		break;
	case RECORD_OPT_TRIGGER_RUNQLAT:
		if (option_parse_u64("--trigger-runqlat", arg, 1, 3600000, &v))
			return OPTIONS_USAGE_ERROR;
		o->trigger_runqlat_ns = v * 1000000ull;
		break;
	case RECORD_OPT_OFF_CPU:
		o->off_cpu = true;
		break;
	case RECORD_OPT_OFF_CPU_MIN:
		if (option_parse_duration("--off-cpu-min", arg, 3600ULL * 1000000000ULL,
					  &o->off_cpu_min_ns))
			return OPTIONS_USAGE_ERROR;
		cl->off_cpu_min_given = true;
		break;
	case RECORD_OPT_VERBOSE:
		o->verbose++;
		break;
	case RECORD_OPT_SWITCH_OUTPUT:
		if (switch_output_parse(arg, &o->switch_output, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case RECORD_OPT_SWITCH_MAX_FILES:
		if (option_parse_u64("--switch-max-files", arg, 1, SWITCH_OUTPUT_MAX_FILES, &v))
			return OPTIONS_USAGE_ERROR;
		o->switch_max_files = (unsigned int)v;
		break;
	case RECORD_OPT_MAX_SIZE:
		if (switch_output_parse_size("--max-size", arg, &o->max_size, err, sizeof(err))) {
			rt_error("%s", err);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_record(int argc, char **argv)
{
	static struct record_command_line cl;
	struct record_options *o = &cl.o;
	char err[512];
	int status, first_positional, r;

	memset(&cl, 0, sizeof(cl));
	o->output = RECORD_DEFAULT_OUTPUT;
	o->ring_pages = transport_default_ring_bytes((unsigned int)sysconf(_SC_NPROCESSORS_CONF),
						     (uint64_t)sysconf(_SC_PHYS_PAGES) *
							     (uint64_t)sysconf(_SC_PAGESIZE)) /
			(size_t)sysconf(_SC_PAGESIZE);
	o->staging_bytes = RECORD_DEFAULT_STAGING_BYTES;
	o->unwind_mem = 0; /* sized from the machine (record_run) */
	o->stack_copy_budget = RECORD_DEFAULT_STACK_COPY_BUDGET;
	o->copy_budget = RECORD_DEFAULT_COPY_BUDGET;
	o->off_cpu_min_ns = RECORD_DEFAULT_OFF_CPU_MIN_NS;
	o->unwind_cache = geteuid() == 0 ? UNWIND_CACHE_DEFAULT_DIR : NULL;
	o->unwind_cache_size = UNWIND_CACHE_DEFAULT_SIZE;
	o->transport = TRANSPORT_RING;
	o->sideband_pages = DEFAULT_SIDEBAND_PAGES;
	o->argc = argc;
	o->argv = argv;
	status = options_parse(&record_command, argc, argv, record_option, &cl, &first_positional);
	if (status != OPTIONS_CONTINUE)
		return cl.denied ? 1 : options_exit_status(status);
	if ((o->trigger_event || o->trigger_runqlat_ns || o->max_snapshots || o->snapshots_overlap) &&
	    !o->overwrite) {
		rt_error("--trigger, --trigger-runqlat, --max-snapshots and --snapshots-overlap need --overwrite: snapshots are taken of a flight recording");
		return 2;
	}
	if ((o->switch_output.mode || o->max_size) && o->overwrite) {
		rt_error("--switch-output and --max-size conflict with --overwrite: a flight recording writes snapshots (DIR/snapshot-NNN, --max-snapshots) instead");
		return 2;
	}
	if (o->switch_max_files && !o->switch_output.mode) {
		rt_error("--switch-max-files needs --switch-output: it sets how many of its outputs are kept");
		return 2;
	}
	if (o->transport == TRANSPORT_RING &&
	    o->ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) > TRANSPORT_RING_MAX_BYTES) {
		rt_error("-m %zu is too large for --transport ring (the default): each CPU's ring is "
			 "one element of a BPF array, at most %u KiB (-m %ld); for larger rings use "
			 "--transport ringbuf or perfbuf", o->ring_pages,
			 TRANSPORT_RING_MAX_BYTES >> 10,
			 (long)(TRANSPORT_RING_MAX_BYTES / sysconf(_SC_PAGESIZE)));
		return 2;
	}
	if (cl.freq_given && o->period_given) {
		rt_error("-F and -c conflict: give a frequency or a period, not both");
		return 2;
	}
	if (!o->period_given && !cl.freq_given)
		o->rate.freq = RECORD_DEFAULT_FREQ;
	if (cl.off_cpu_min_given && !o->off_cpu) {
		rt_error("--off-cpu-min needs --off-cpu: it sets which of the off-CPU blocks are sampled");
		return 2;
	}
	if (!o->nr_events)
		event_spec_parse("cpu-clock", o->events, &o->nr_events, err, sizeof(err));
	/* beside the sampling events, as perf record --off-cpu adds it */
	if (o->off_cpu && event_offcpu_append(o->events, &o->nr_events, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	for (unsigned int i = 0; i < o->nr_events; i++)
		if (o->events[i].type == PERF_TYPE_SOFTWARE && o->events[i].config <= PERF_COUNT_SW_TASK_CLOCK &&
		    o->period_given && o->rate.period < 1000) {
			rt_error("-c %llu is too short a period for %s: clocks count nanoseconds, use at least 1000",
				 (unsigned long long)o->rate.period, o->events[i].name);
			return 2;
		}
	if (first_positional < argc)
		o->workload_argv = argv + first_positional;
	if (cl.metrics_listen) {
		static struct record_sink *metrics;

		metrics = metrics_sink_create(cl.metrics_listen, METRICS_TOP_COMMS, err, sizeof(err));
		if (!metrics) {
			rt_error("%s", err);
			return 1;
		}
		o->sinks = &metrics;
		o->nr_sinks = 1;
	}
	/* after the exec (which clears a parent-death signal when the binary
	 * has file capabilities); the parent checked after, as it may have
	 * ended before */
	if (cl.exit_with_parent &&
	    (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != (pid_t)cl.exit_with_parent)) {
		rt_error("--exit-with-parent %" PRIu64 ": ringtrace's parent is %d (it has ended?)",
			 cl.exit_with_parent, (int)getppid());
		return 1;
	}
	if ((r = trace_filter_compile_all(o->events, o->nr_events, err, sizeof(err)))) {
		rt_error("%s", err);
		trace_filter_free_all(o->events, o->nr_events);
		return r == -EINVAL || r == -E2BIG ? 2 : 1;
	}
	r = record_run(o);
	trace_filter_free_all(o->events, o->nr_events);
	return r;
}
