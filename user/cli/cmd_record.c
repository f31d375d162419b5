/* cmd_record.c: "ringtrace record" and "ringtrace list": parse and check the
 * options, then hand them to the recording session. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "capture/event_spec.h"
#include "lib/log.h"
#include "export/metrics_server.h"
#include "capture/perf_events.h"
#include "record/record.h"

#define DEFAULT_FREQ 999
#define DEFAULT_RING_PAGES 128     /* 512 KiB per CPU, perf's default */
#define DEFAULT_SIDEBAND_PAGES 64  /* 256 KiB per CPU */
#define DEFAULT_STAGING_BYTES (8u << 20)
#define DEFAULT_OUTPUT "ringtrace.data"

enum {
	OPT_FORCE = 256,
	OPT_PER_THREAD,
	OPT_CGROUP_EXACT,
	OPT_ALL_CGROUPS,
	OPT_TRANSPORT,
	OPT_STAGING_SIZE,
	OPT_DEBUG_DRAIN_DELAY,
	OPT_DEBUG_WRITER_DELAY,
	OPT_OVERWRITE,
	OPT_MAX_SNAPSHOTS,
	OPT_TRIGGER,
	OPT_TRIGGER_RUNQLAT,
	OPT_METRICS,
	OPT_KEEP_CAPS,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "cgroup-exact", no_argument, NULL, OPT_CGROUP_EXACT },
	{ "all-cgroups", no_argument, NULL, OPT_ALL_CGROUPS },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "staging-size", required_argument, NULL, OPT_STAGING_SIZE },
	{ "debug-drain-delay-ms", required_argument, NULL, OPT_DEBUG_DRAIN_DELAY },
	{ "debug-writer-delay-ms", required_argument, NULL, OPT_DEBUG_WRITER_DELAY },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "max-snapshots", required_argument, NULL, OPT_MAX_SNAPSHOTS },
	{ "trigger", required_argument, NULL, OPT_TRIGGER },
	{ "trigger-runqlat", required_argument, NULL, OPT_TRIGGER_RUNQLAT },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "keep-caps", no_argument, NULL, OPT_KEEP_CAPS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace record [-e EVENTS] [-a | -C CPUS | -p PIDS | -t TIDS] [-G CGROUP]\n"
		"                        [-F HZ | -c PERIOD] [-g] [-o DIR] [-m PAGES] [-- CMD ARGS...]\n"
		"\n"
		"Samples through BPF and writes a perf.data directory (DIR/data and\n"
		"DIR/data.cpuN) that ringtrace report and perf report read.\n"
		"\n"
		"what:\n"
		"  -e, --event EVENTS   events, comma-separated, repeatable (default cpu-clock):\n"
		"                       cpu-clock, task-clock, page-faults, context-switches,\n"
		"                       cpu-migrations, minor-faults, major-faults, hardware\n"
		"                       events where there is a PMU, SYSTEM:TRACEPOINT;\n"
		"                       NAME:u / NAME:k for user or kernel only; -e list lists them\n"
		"  -F, --freq HZ        sample at HZ per CPU (default %d; not tracepoints)\n"
		"  -c, --count PERIOD   sample every PERIOD events (ns for clocks; tracepoints too)\n"
		"  -g, --call-graph     record kernel and user callchains (frame pointers)\n"
		"where:\n"
		"  -a, --all-cpus       every CPU, every task\n"
		"  -C, --cpu CPUS       only these CPUs, e.g. 0,2-3 (with -p/-t: the tasks there)\n"
		"  -p, --pid PIDS       only these processes (and what they fork, unless -i)\n"
		"  -t, --tid TIDS       only these threads\n"
		"      --per-thread     events follow each thread instead of watching CPUs, one ring\n"
		"  -i, --no-inherit     do not follow forked children\n"
		"  -G, --cgroup PATH    with -a/-C: only tasks in this cgroup v2 directory and below\n"
		"                       (absolute, or relative to the cgroup v2 mount)\n"
		"      --cgroup-exact   with -G: not the cgroups below it\n"
		"      --all-cgroups    record every sample's cgroup (report --sort cgroup)\n"
		"  -- CMD ARGS          run CMD; alone it is the target (followed with its\n"
		"                       children), with -a/-C/-p/-t it sets the duration\n"
		"transport and output:\n"
		"      --transport T    ringbuf (BPF ring buffers, default) or perfbuf (a perf\n"
		"                       event array: one perf ring per CPU)\n"
		"  -m, --mmap-pages N   kernel ring size per CPU in pages, a power of two (default %d)\n"
		"      --staging-size S per-CPU staging ring between draining and writing, a\n"
		"                       power of two, e.g. 8M (default 8M)\n"
		"  -o, --output DIR     output directory (default %s)\n"
		"      --force          reuse DIR if it exists and is yours\n"
		"flight recorder:\n"
		"      --overwrite      keep only the newest samples per CPU in memory (the\n"
		"                       staging ring, or with perfbuf the kernel's backward perf\n"
		"                       rings) and write DIR/snapshot-NNN on each trigger and at\n"
		"                       the end, with exact counts of what was overwritten\n"
		"                       triggers: SIGUSR2, ringtrace snapshot DIR, and\n"
		"      --trigger EVENT  a hit of tracepoint EVENT (SYSTEM:NAME)\n"
		"      --trigger-runqlat MS  a task that waited more than MS ms to run\n"
		"      --max-snapshots N  at most N snapshots (default: no limit)\n"
		"      --metrics ADDR:PORT  serve Prometheus metrics of this recording there\n"
		"                       (as ringtrace export, from the samples recorded)\n"
		"      --keep-caps      keep the capabilities after attaching (by default every\n"
		"                       one is dropped once the events are attached and the\n"
		"                       files opened)\n"
		"  -v, --verbose        show libbpf's messages\n"
		"      --debug-drain-delay-ms MS, --debug-writer-delay-ms MS\n"
		"                       test knobs: a slow drain, a slow disk\n"
		"\n"
		"Without a command, recording stops on SIGINT (Ctrl-C) or SIGTERM.\n",
		DEFAULT_FREQ, DEFAULT_RING_PAGES, DEFAULT_OUTPUT);
}

static int is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	event_list_print(stdout);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	static struct record_options o;
	bool freq_given = false;
	uint64_t v, max_rate = perf_max_sample_rate();
	char err[512];
	int c;

	memset(&o, 0, sizeof(o));
	o.output = DEFAULT_OUTPUT;
	o.ring_pages = DEFAULT_RING_PAGES;
	o.staging_bytes = DEFAULT_STAGING_BYTES;
	o.transport = TRANSPORT_RINGBUF;
	o.sideband_pages = DEFAULT_SIDEBAND_PAGES;
	o.argc = argc;
	o.argv = argv;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:e:aC:p:t:iG:F:c:go:m:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!strcmp(optarg, "list"))
				return cmd_list(0, NULL);
			if (event_spec_parse(optarg, o.events, &o.nr_events, err, sizeof(err))) {
				rt_error("%s", err);
				return 2;
			}
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'C':
			o.cpu_list = optarg;
			break;
		case 'p':
			o.pid_list = optarg;
			break;
		case 't':
			o.tid_list = optarg;
			break;
		case OPT_PER_THREAD:
			o.per_thread = true;
			break;
		case 'i':
			o.no_inherit = true;
			break;
		case 'G':
			o.cgroup = optarg;
			break;
		case OPT_CGROUP_EXACT:
			o.cgroup_exact = true;
			break;
		case OPT_ALL_CGROUPS:
			o.all_cgroups = true;
			break;
		case 'F':
			if (cli_parse_u64("-F", optarg, 1, max_rate ? max_rate : 1000000, &v))
				return 2;
			o.rate.freq = v;
			freq_given = true;
			break;
		case 'c':
			if (cli_parse_u64("-c", optarg, 1, UINT64_MAX >> 1, &v))
				return 2;
			o.rate.period = v;
			o.period_given = true;
			break;
		case 'g':
			o.callchain = true;
			break;
		case 'o':
			if (!optarg[0]) {
				rt_error("-o needs a directory name");
				return 2;
			}
			o.output = optarg;
			break;
		case 'm':
			if (cli_parse_u64("-m", optarg, 1, 1 << 20, &v))
				return 2;
			if (!is_power_of_two(v)) {
				rt_error("invalid value \"%s\" for -m: the ring size in pages must be a power of two",
					 optarg);
				return 2;
			}
			o.ring_pages = (size_t)v;
			break;
		case OPT_TRANSPORT:
			if (!strcmp(optarg, "ringbuf")) {
				o.transport = TRANSPORT_RINGBUF;
			} else if (!strcmp(optarg, "perfbuf")) {
				o.transport = TRANSPORT_PERFBUF;
			} else {
				rt_error("unknown transport \"%s\": use ringbuf or perfbuf", optarg);
				return 2;
			}
			break;
		case OPT_STAGING_SIZE:
			if (cli_parse_size("--staging-size", optarg, 64 << 10, 1ULL << 34, &v))
				return 2;
			if (!is_power_of_two(v)) {
				rt_error("invalid size \"%s\" for --staging-size: it must be a power of two",
					 optarg);
				return 2;
			}
			o.staging_bytes = (size_t)v;
			break;
		case OPT_DEBUG_DRAIN_DELAY:
			if (cli_parse_u64("--debug-drain-delay-ms", optarg, 0, 60000, &v))
				return 2;
			o.debug_drain_delay_ms = (unsigned int)v;
			break;
		case OPT_DEBUG_WRITER_DELAY:
			if (cli_parse_u64("--debug-writer-delay-ms", optarg, 0, 60000, &v))
				return 2;
			o.debug_writer_delay_ms = (unsigned int)v;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_OVERWRITE:
			o.overwrite = true;
			break;
		case OPT_MAX_SNAPSHOTS:
			if (cli_parse_u64("--max-snapshots", optarg, 1, 999, &v))
				return 2;
			o.max_snapshots = (unsigned int)v;
			break;
		case OPT_TRIGGER:
			if (!strchr(optarg, ':') || strchr(optarg, ',')) {
				rt_error("invalid --trigger \"%s\": give one tracepoint as SYSTEM:NAME, e.g. sched:sched_process_exit",
					 optarg);
				return 2;
			}
			o.trigger_event = optarg;
			break;
		case OPT_KEEP_CAPS:
			o.keep_caps = true;
			break;
		case OPT_METRICS:
			if (!metrics_listen_valid(optarg)) {
				rt_error("invalid --metrics \"%s\": give ADDR:PORT, e.g. %s", optarg,
					 METRICS_DEFAULT_LISTEN);
				return 2;
			}
			o.metrics_listen = optarg;
			/* every sample names its cgroup */
			o.all_cgroups = true;
			break;
		case OPT_TRIGGER_RUNQLAT:
			if (cli_parse_u64("--trigger-runqlat", optarg, 1, 3600000, &v))
				return 2;
			o.trigger_runqlat_ns = v * 1000000ull;
			break;
		case 'v':
			o.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			rt_error("option %s needs a value: see ringtrace record --help",
				 cli_rejected_option(argv));
			return 2;
		default:
			rt_error("unknown option %s: see ringtrace record --help",
				 cli_rejected_option(argv));
			return 2;
		}
	}
	if ((o.trigger_event || o.trigger_runqlat_ns || o.max_snapshots) && !o.overwrite) {
		rt_error("--trigger, --trigger-runqlat and --max-snapshots need --overwrite: snapshots are taken of a flight recording");
		return 2;
	}
	if (freq_given && o.period_given) {
		rt_error("-F and -c conflict: give a frequency or a period, not both");
		return 2;
	}
	if (!o.period_given && !freq_given)
		o.rate.freq = DEFAULT_FREQ;
	if (!o.nr_events)
		event_spec_parse("cpu-clock", o.events, &o.nr_events, err, sizeof(err));
	for (unsigned int i = 0; i < o.nr_events; i++)
		if (o.events[i].type == PERF_TYPE_SOFTWARE && o.events[i].config <= PERF_COUNT_SW_TASK_CLOCK &&
		    o.period_given && o.rate.period < 1000) {
			rt_error("-c %llu is too short a period for %s: clocks count nanoseconds, use at least 1000",
				 (unsigned long long)o.rate.period, o.events[i].name);
			return 2;
		}
	if (optind < argc)
		o.workload_argv = argv + optind;
	return record_run(&o);
}
