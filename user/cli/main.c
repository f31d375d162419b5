/* SPDX-License-Identifier: GPL-2.0-only */
/* main.c: the ringtrace command line: finds the subcommand in the command
 * table and runs it (and, hidden, writes the man pages and completion). */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "capture/libbpf_messages.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/options_doc.h"

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
	{ "merge", cmd_merge, "write a recording directory as one perf.data file" },
	{ "trace", cmd_trace, "count and time syscalls per process, as perf trace -s" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))
#define DESCRIPTION "an eBPF system-wide sampling profiler, tracer and Prometheus exporter"

/* Each command with its option table, as the man pages and completion take them. */
static size_t doc_commands(struct options_doc_command *out)
{
	size_t n = 0;

	for (size_t i = 0; i < NR_COMMANDS; i++)
		for (unsigned int j = 0; j < nr_all_commands; j++)
			if (!strcmp(all_commands[j]->name, commands[i].name))
				out[n++] = (struct options_doc_command){ all_commands[j],
									 commands[i].summary };
	return n;
}

/* Hidden: "__man" writes ringtrace(1), "__man CMD" ringtrace-CMD(1),
 * "__completion" the bash completion, all from the option tables (make
 * install puts them in place). */
static int write_doc(int argc, char **argv)
{
	struct options_doc_command docs[NR_COMMANDS];
	size_t n = doc_commands(docs);

	if (!strcmp(argv[1], "__completion") && argc == 2) {
		options_print_completion("ringtrace", docs, n, stdout);
		return 0;
	}
	if (argc == 2) {
		options_print_man_index("ringtrace", RINGTRACE_VERSION, DESCRIPTION, docs, n, stdout);
		return 0;
	}
	for (size_t i = 0; argc == 3 && i < n; i++) {
		if (!strcmp(docs[i].cmd->name, argv[2])) {
			options_print_man("ringtrace", RINGTRACE_VERSION, &docs[i], stdout);
			return 0;
		}
	}
	rt_error("usage: ringtrace __man [COMMAND] | ringtrace __completion");
	return 2;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: ringtrace COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nringtrace COMMAND --help shows the options of a command.\n");
}

int main(int argc, char **argv)
{
	const char *near;

	/* Two malloc arenas, not glibc's 8 a CPU: the unwind builders, the
	 * drain and export's request threads each kept an arena grown to the
	 * largest file it compiled or profile it made (beside heavy churn the
	 * sampling child held 122 MiB of anonymous memory, 22 MiB in use) */
	mallopt(M_ARENA_MAX, 2);
	/* libbpf prints its warnings by default, where every loader (record's,
	 * trace's, export's) says what failed in one line of its own */
	libbpf_messages_show(false);
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
	if (!strcmp(argv[1], "__man") || !strcmp(argv[1], "__completion"))
		return write_doc(argc, argv);
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	near = options_nearest_command(all_commands, nr_all_commands, argv[1]);
	if (near)
		rt_error("unknown command \"%s\": did you mean %s? (ringtrace --help lists them)",
			 argv[1], near);
	else
		rt_error("unknown command \"%s\": run ringtrace --help for the list", argv[1]);
	return 2;
}
