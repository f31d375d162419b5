/* cmd_report.c: "ringtrace report": parses the options and prints the report
 * of a recording to stdout. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "log.h"
#include "report.h"

enum { OPT_STDIO = 256, OPT_COMM, OPT_PID, OPT_KALLSYMS };

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "sort", required_argument, NULL, 's' },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace report [DIR] [--sort KEYS] [--comm COMM] [--pid PID] [--stdio]\n"
		"\n"
		"Prints where the samples of a recording (default ringtrace.data) fell,\n"
		"by overhead.\n"
		"\n"
		"  -i, --input DIR     the recording (also the first argument)\n"
		"  -s, --sort KEYS     group by these keys, comma-separated, from\n"
		"                      comm, pid, tid, dso, sym, cpu (default comm,dso,sym)\n"
		"      --comm COMM     only samples of threads named COMM\n"
		"      --pid PID       only samples of process PID\n"
		"      --kallsyms FILE kernel symbols (default /proc/kallsyms)\n"
		"      --stdio         plain text table (the default)\n");
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
