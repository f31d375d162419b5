/* cmd_report.c: "ringtrace report": parses the options and prints the report
 * of a recording to stdout. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "report/report.h"

enum {
	OPT_STDIO = 256,
	OPT_COMM,
	OPT_PID,
	OPT_CPU,
	OPT_CGROUP,
	OPT_TIME,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_FOLDED,
	OPT_FLAMEGRAPH,
	OPT_KALLSYMS,
	OPT_EVENT,
};

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, 's' },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace report [DIR] [--sort KEYS] [--children] [filters] [--stdio]\n"
		"       ringtrace report [DIR] --folded | --flamegraph FILE.svg [filters]\n"
		"\n"
		"Prints where the samples of a recording (default ringtrace.data) fell,\n"
		"by overhead; or their stacks, folded or as a flame graph.\n"
		"\n"
		"  -i, --input DIR     the recording (also the first argument)\n"
		"  -s, --sort KEYS     group by these keys, comma-separated, from comm, pid,\n"
		"                      tid, dso, sym, cpu, cgroup (default comm,dso,sym)\n"
		"      --children      also credit every caller on a sample's stack (Children\n"
		"                      column; with callchains)\n"
		"      --no-children   only the sampled function (Self; the default)\n"
		"      --stdio         plain text table (the default)\n"
		"      --folded        one line per unique stack, root first, and its samples\n"
		"                      (Brendan Gregg's folded format)\n"
		"      --flamegraph FILE.svg  an interactive SVG flame graph (click to zoom,\n"
		"                      Ctrl-F or Search to search)\n"
		"filters:\n"
		"      --event NAME    only this event's samples (folded stacks and flame\n"
		"                      graphs: the recording's first event without it)\n"
		"      --comm COMM     only samples of threads named COMM\n"
		"      --pid PID       only samples of process PID\n"
		"      --cpu CPUS      only samples taken on these CPUs (0,2-3)\n"
		"      --cgroup PATH   only samples of this cgroup (as --sort cgroup prints it)\n"
		"      --time START,END  only samples in this time range, seconds as script\n"
		"                      prints them (either may be empty)\n"
		"      --kallsyms FILE kernel symbols (default /proc/kallsyms)\n");
}

int cmd_report(int argc, char **argv)
{
	struct report_options o = { .input = "ringtrace.data", .pid_filter = -1 };
	char err[1024];
	uint64_t v;
	int c;

	report_parse_sort(&o, "comm,dso,sym", err, sizeof(err));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:s:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 's':
			if (report_parse_sort(&o, optarg, err, sizeof(err))) {
				rt_error("%s", err);
				return 2;
			}
			break;
		case OPT_COMM:
			o.comm_filter = optarg;
			break;
		case OPT_PID:
			if (cli_parse_u64("--pid", optarg, 0, 0x7fffffff, &v))
				return 2;
			o.pid_filter = (int64_t)v;
			break;
		case OPT_EVENT:
			o.event_filter = optarg;
			break;
		case OPT_CPU:
			o.cpu_filter = optarg;
			break;
		case OPT_CGROUP:
			o.cgroup_filter = optarg;
			break;
		case OPT_TIME:
			if (report_parse_time(&o, optarg, err, sizeof(err))) {
				rt_error("%s", err);
				return 2;
			}
			break;
		case OPT_CHILDREN:
			o.children = true;
			break;
		case OPT_NO_CHILDREN:
			o.children = false;
			break;
		case OPT_FOLDED:
			o.output = REPORT_FOLDED;
			break;
		case OPT_FLAMEGRAPH:
			o.output = REPORT_FLAMEGRAPH;
			o.flamegraph_path = optarg;
			break;
		case OPT_KALLSYMS:
			o.kallsyms = optarg;
			break;
		case OPT_STDIO:
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			rt_error("option %s needs a value: see ringtrace report --help",
				 cli_rejected_option(argv));
			return 2;
		default:
			rt_error("unknown option %s: see ringtrace report --help",
				 cli_rejected_option(argv));
			return 2;
		}
	}
	if (optind < argc)
		o.input = argv[optind++];
	if (optind < argc) {
		rt_error("unexpected argument \"%s\": report reads one recording", argv[optind]);
		return 2;
	}
	if (report_run(&o, stdout, err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	return 0;
}
