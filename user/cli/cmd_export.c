/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_export.c: "ringtrace export": parses and checks the options, then serves
 * the metrics (export_run), and with -g profiles, until SIGINT or SIGTERM. */
#include <string.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/export_profiler.h"
#include "export/metrics_server.h"
#include "export/serve.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "lib/options.h"
#include "record/unwind_cache.h"
#include "sys/container_names.h"

/* What export's options say. */
struct export_command_line {
	struct export_options o;
	bool profiles; /* -g */
	const char *unwind_mem; /* --unwind-mem, as given (the child parses it too) */
	const char *unwind_cache_size; /* --unwind-cache-size, as given (and the child) */
	struct container_runtime_sockets sockets; /* NULL: "none" */
	bool offcpu;                   /* --off-cpu */
	const char *offcpu_min;        /* --off-cpu-min, as given (the child parses it too) */
};

/* A runtime's socket option: "none", or an absolute path. */
static int runtime_socket_option(const char *option, const char *arg, const char **out)
{
	if (!strcmp(arg, "none")) {
		*out = NULL;
		return OPTIONS_CONTINUE;
	}
	if (arg[0] != '/') {
		rt_error("%s takes the absolute path of the runtime's socket, or none", option);
		return OPTIONS_USAGE_ERROR;
	}
	*out = arg;
	return OPTIONS_CONTINUE;
}

/* One option of export into ctx (a struct export_command_line); an enum
 * options_result. */
static int export_option(void *ctx, int id, const char *arg)
{
	struct export_command_line *line = ctx;
	struct export_options *cl = &line->o;
	uint64_t v;

	switch ((enum export_option_id)id) {
	case EXPORT_OPT_LISTEN:
		cl->listen = arg;
		break;
	case EXPORT_OPT_TEXTFILE:
		cl->textfile = arg;
		break;
	case EXPORT_OPT_INTERVAL:
		if (option_parse_u64("--interval", arg, 1, 3600, &v))
			return OPTIONS_USAGE_ERROR;
		cl->interval = (unsigned int)v;
		break;
	case EXPORT_OPT_TOP:
		if (option_parse_u64("--top", arg, 1, 1000, &v))
			return OPTIONS_USAGE_ERROR;
		cl->exporter.top_comms = (unsigned int)v;
		break;
	case EXPORT_OPT_EVENT:
		if (!strcmp(arg, "cpu-clock")) {
			cl->exporter.event_config = PERF_COUNT_SW_CPU_CLOCK;
		} else if (!strcmp(arg, "task-clock")) {
			cl->exporter.event_config = PERF_COUNT_SW_TASK_CLOCK;
		} else {
			rt_error("export samples cpu-clock or task-clock, not \"%s\"", arg);
			return OPTIONS_USAGE_ERROR;
		}
		break;
	case EXPORT_OPT_FREQ:
		if (parse_sample_freq(arg, &v))
			return OPTIONS_USAGE_ERROR;
		cl->exporter.rate.freq = v;
		break;
	case EXPORT_OPT_CGROUP:
		cl->exporter.cgroup = arg;
		break;
	case EXPORT_OPT_CGROUP_GRACE:
		if (option_parse_u64("--cgroup-grace", arg, 0, 86400, &v))
			return OPTIONS_USAGE_ERROR;
		cl->exporter.cgroup_grace_s = (unsigned int)v;
		break;
	case EXPORT_OPT_WEB_CONFIG:
		cl->web_config = arg;
		break;
	case EXPORT_OPT_PROFILES:
		line->profiles = true;
		break;
	case EXPORT_OPT_UNWIND_MEM:
		if (option_parse_size("--unwind-mem", arg, 64 << 10, 1ULL << 32, &v))
			return OPTIONS_USAGE_ERROR;
		line->unwind_mem = arg;
		break;
	case EXPORT_OPT_UNWIND_CACHE_SIZE:
		if (option_parse_size("--unwind-cache-size", arg, UNWIND_CACHE_MIN_SIZE, 1ULL << 40,
				      &v))
			return OPTIONS_USAGE_ERROR;
		line->unwind_cache_size = arg;
		break;
	case EXPORT_OPT_CONTAINERD_SOCKET:
		return runtime_socket_option("--containerd-socket", arg,
					     &line->sockets.path[RUNTIME_CONTAINERD]);
	case EXPORT_OPT_CRIO_SOCKET:
		return runtime_socket_option("--crio-socket", arg, &line->sockets.path[RUNTIME_CRIO]);
	case EXPORT_OPT_DOCKER_SOCKET:
		return runtime_socket_option("--docker-socket", arg,
					     &line->sockets.path[RUNTIME_DOCKER]);
	case EXPORT_OPT_OFF_CPU:
		line->offcpu = true;
		break;
	case EXPORT_OPT_OFF_CPU_MIN:
		if (option_parse_duration("--off-cpu-min", arg, 3600ULL * 1000000000ULL, &v))
			return OPTIONS_USAGE_ERROR;
		line->offcpu_min = arg;
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_export(int argc, char **argv)
{
	struct export_command_line line = { .o = {
		.exporter = { .event_type = PERF_TYPE_SOFTWARE,
			 .event_config = PERF_COUNT_SW_CPU_CLOCK,
			 .rate = { .freq = EXPORT_DEFAULT_FREQ },
			 .top_comms = EXPORT_DEFAULT_TOP_COMMS,
			 .cgroup_grace_s = EXPORT_DEFAULT_CGROUP_GRACE_S },
		.interval = EXPORT_DEFAULT_INTERVAL_S,
	}, .sockets = { .path = {
		[RUNTIME_CONTAINERD] = CONTAINERD_DEFAULT_SOCKET,
		[RUNTIME_CRIO] = CRIO_DEFAULT_SOCKET,
		[RUNTIME_DOCKER] = DOCKER_DEFAULT_SOCKET,
	} } };
	struct export_options *cl = &line.o;
	struct profile_service service;
	struct export_profiler *profiler;
	struct container_names *names;
	char err[1024];
	int parsed, next, status;

	parsed = options_parse(&export_command, argc, argv, export_option, &line, &next);
	if (parsed != OPTIONS_CONTINUE)
		return options_exit_status(parsed);
	if (next < argc) {
		rt_error("unexpected argument \"%s\": see ringtrace export --help", argv[next]);
		return 2;
	}
	if (!cl->listen && !cl->textfile)
		cl->listen = METRICS_DEFAULT_LISTEN;
	if (cl->listen && !metrics_listen_valid(cl->listen)) {
		rt_error("invalid --listen \"%s\": give ADDR:PORT, e.g. %s or [::1]:%s", cl->listen,
			 METRICS_DEFAULT_LISTEN, METRICS_DEFAULT_PORT);
		return 2;
	}
	if (line.unwind_mem && !line.profiles) {
		rt_error("--unwind-mem sizes the unwind tables of -g's profiles: give -g too");
		return 2;
	}
	if (line.unwind_cache_size && !line.profiles) {
		rt_error("--unwind-cache-size bounds the unwind cache of -g's profiles: give -g too");
		return 2;
	}
	if (line.offcpu && !line.profiles) {
		rt_error("--off-cpu serves off-CPU profiles beside -g's CPU profiles: give -g too");
		return 2;
	}
	if (line.offcpu_min && !line.offcpu) {
		rt_error("--off-cpu-min needs --off-cpu: it sets which of the off-CPU blocks are sampled");
		return 2;
	}
	if (line.profiles && !cl->listen) {
		rt_error("-g serves profiles over HTTP: give --listen ADDR:PORT too");
		return 2;
	}
	/* kept for the whole run; the runtimes asked only as samples need it */
	names = container_names_create(&line.sockets);
	if (!names) {
		rt_error("out of memory");
		return 1;
	}
	cl->exporter.names = names;
	if (!line.profiles) {
		status = export_run(cl);
		container_names_free(names);
		return status;
	}
	/* started while the capabilities last: the child attaches its own events */
	profiler = export_profiler_start(&(struct export_profiler_config){
						 .freq = cl->exporter.rate.freq,
						 .cgroup = cl->exporter.cgroup,
						 .unwind_mem = line.unwind_mem ? line.unwind_mem
									       : EXPORT_DEFAULT_UNWIND_MEM,
						 .unwind_cache_size = line.unwind_cache_size,
						 .names = names,
						 .offcpu = line.offcpu,
						 .offcpu_min = line.offcpu_min ? line.offcpu_min
									       : EXPORT_DEFAULT_OFF_CPU_MIN },
					 err, sizeof(err));
	if (!profiler) {
		rt_error("%s", err);
		container_names_free(names);
		return 1;
	}
	service = (struct profile_service){ export_profiler_make, profiler, export_profiler_healthy,
					    line.offcpu };
	cl->exporter.sampler_pid = export_profiler_child_pid;
	cl->exporter.sampler_counts = export_profiler_child_counts;
	cl->exporter.sampler_ctx = profiler;
	cl->profiles = &service;
	status = export_run(cl);
	export_profiler_stop(profiler);
	container_names_free(names);
	return status;
}
