/* cmd_script.c: "ringtrace script": parses the options and prints every
 * record of a recording to stdout. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "report/script.h"

enum { OPT_KALLSYMS = 256 };

static const struct option long_options[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ringtrace script [DIR]\n"
		"\n"
		"Prints every sample and LOST record of a recording (default ringtrace.data),\n"
		"one per line in time order across CPUs, with perf script's default fields:\n"
		"comm, tid, [cpu], time, period, event, ip symbol+offset (dso); callchains one\n"
		"frame per line; tracepoint fields as name=value.\n"
		"\n"
		"  -i, --input DIR     the recording (also the first argument)\n"
		"      --kallsyms FILE kernel symbols (default /proc/kallsyms)\n");
}

int cmd_script(int argc, char **argv)
{
	struct script_options o = { .input = "ringtrace.data" };
	char err[1024];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case OPT_KALLSYMS:
			o.kallsyms = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			rt_error("option %s needs a value: see ringtrace script --help",
				 cli_rejected_option(argv));
			return 2;
		default:
			rt_error("unknown option %s: see ringtrace script --help",
				 cli_rejected_option(argv));
			return 2;
		}
	}
	if (optind < argc)
		o.input = argv[optind++];
	if (optind < argc) {
		rt_error("unexpected argument \"%s\": script reads one recording", argv[optind]);
		return 2;
	}
	if (script_run(&o, stdout, err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
