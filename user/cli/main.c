/* SPDX-License-Identifier: GPL-2.0-only */
/* main.c: the ringtrace command line: finds the subcommand in the command
 * table and runs it. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "lib/log.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "sample the system into a perf.data directory" },
	{ "report", cmd_report, "print where a recording's samples fell, folded stacks, flame graphs" },
	{ "script", cmd_script, "print every sample and LOST record of a recording, in time order" },
	{ "list", cmd_list, "list the events record -e accepts" },
	{ "export", cmd_export, "serve live Prometheus metrics (CPU per cgroup, run-queue latency)" },
	{ "snapshot", cmd_snapshot, "ask a flight recording (record --overwrite) for a snapshot" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: ringtrace COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nringtrace COMMAND --help shows the options of a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("ringtrace %s\n", RINGTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	rt_error("unknown command \"%s\": run ringtrace --help for the list", argv[1]);
	return 2;
}
