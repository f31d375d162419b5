/* cmd_record.c: "ringtrace record": parses and validates the options, then
 * hands them to the recording session. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "log.h"
#include "perf_events.h"
#include "record.h"

#define DEFAULT_FREQ 999
#define DEFAULT_RING_PAGES 128     /* 512 KiB per CPU, perf's default */
#define DEFAULT_SIDEBAND_PAGES 64  /* 256 KiB per CPU */
#define DEFAULT_OUTPUT "ringtrace.data"

enum { OPT_FORCE = 256 };

static const struct option long_options[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", no_argument, NULL, 'g' },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace record -a [-F HZ | -c NS] [-g] [-o DIR] [-m PAGES] [--force] [-- CMD ARGS...]\n"
		"\n"
		"Samples every CPU with cpu-clock through BPF and writes a perf.data directory\n"
		"(DIR/data and DIR/data.cpuN) that ringtrace report and perf report read.\n"
		"\n"
		"  -a, --all-cpus       sample all online CPUs (system-wide)\n"
		"  -F, --freq HZ        sample at HZ per CPU (default %d)\n"
		"  -c, --count NS       sample every NS nanoseconds of cpu-clock instead\n"
		"  -g, --call-graph     record kernel and user callchains (frame pointers)\n"
		"  -o, --output DIR     output directory (default %s)\n"
		"  -m, --mmap-pages N   BPF ring size per CPU in pages, a power of two (default %d)\n"
		"      --force          reuse DIR if it exists and is yours\n"
		"  -v, --verbose        show libbpf's messages\n"
		"\n"
		"With -- CMD, CMD runs and the recording stops when it exits; otherwise\n"
		"recording stops on SIGINT (Ctrl-C) or SIGTERM.\n",
		DEFAULT_FREQ, DEFAULT_OUTPUT, DEFAULT_RING_PAGES);
}

static int is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

int cmd_record(int argc, char **argv)
{
	struct record_options o = {
		.output = DEFAULT_OUTPUT,
		.ring_pages = DEFAULT_RING_PAGES,
		.sideband_pages = DEFAULT_SIDEBAND_PAGES,
	};
	bool freq_given = false, period_given = false;
	uint64_t v, max_rate = perf_max_sample_rate();
	int c;

	o.argc = argc;
	o.argv = argv;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:aF:c:go:m:vh", long_options, NULL)) != -1) {
		switch (c) {
		case 'a':
			o.system_wide = true;
			break;
		case 'F':
			if (cli_parse_u64("-F", optarg, 1, max_rate ? max_rate : 1000000, &v))
				return 2;
			o.rate.freq = v;
			freq_given = true;
			break;
		case 'c':
			if (cli_parse_u64("-c", optarg, 1000, UINT64_MAX >> 1, &v))
				return 2;
			o.rate.period = v;
			period_given = true;
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
		case OPT_FORCE:
			o.force = true;
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
	if (freq_given && period_given) {
		rt_error("-F and -c conflict: give a frequency or a period, not both");
		return 2;
	}
	if (!period_given && !freq_given)
		o.rate.freq = DEFAULT_FREQ;
	if (optind < argc)
		o.workload_argv = argv + optind;
	if (!o.system_wide) {
		rt_error(o.workload_argv ? "recording only a command's own tasks is not supported yet: add -a to sample all CPUs while it runs"
					 : "nothing to record: pass -a to sample all CPUs, and optionally a command after --");
		return 2;
	}
	return record_run(&o);
}
