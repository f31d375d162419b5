/* SPDX-License-Identifier: GPL-2.0-only */
/* small_command_options.c: the option tables of the commands with few
 * options (trace, merge, list), as command_options.c holds the others'. */
#include "cli/command_options.h"

static const struct options_entry trace_options_table[] = {
	{ "summary", 's', NULL,
	  "count and time every syscall in the kernel, and print per process and syscall the "
	  "calls, errors and total/min/avg/max time at the end, as perf trace -s (the only mode: "
	  "perf trace's line per call is not printed, and without -s trace says so, naming the "
	  "command line with -s, and exits 2)",
	  NULL, TRACE_OPT_SUMMARY },
	{ "all-cpus", 'a', NULL, "every process of the machine (ringtrace's own excepted)",
	  "where", TRACE_OPT_ALL_CPUS },
	{ "pid", 'p', "PID", "these processes (comma-separated), all their threads, until they exit",
	  NULL, TRACE_OPT_PID },
	{ NULL, 0, "-- CMD ARGS", "run CMD; alone it is the target (with its children), with -a or -p it sets the duration", NULL, 0 },
	{ "histogram", 0, NULL,
	  "after each process's table, each syscall's log2 histogram of call times (ns)",
	  "output", TRACE_OPT_HISTOGRAM },
	{ "metrics", 0, "FILE",
	  "also write the sums as Prometheus text to FILE (- for stdout): a histogram of call "
	  "times and a counter of errors per process and syscall",
	  NULL, TRACE_OPT_METRICS },
	{ 0 },
};

static const struct options_detail trace_details[] = {
	{ "--summary",
	  "raw_syscalls:sys_enter and sys_exit are paired in BPF: the entry's time is kept per "
	  "thread, and each exit adds to its process's and syscall's count, errors (a negative "
	  "return), total, minimum, maximum, sum of squares and log2 buckets; no record per "
	  "syscall reaches user space. A syscall that never returns (exit_group) or that was "
	  "entered before the start is not counted. events in the header is twice the calls "
	  "(an entry and an exit each), as perf counts them." },
	{ "-- CMD ARGS",
	  "CMD is counted from its exec on (ringtrace's child waiting to exec it is not), with "
	  "the processes it forks; the summary is printed when it exits, and ringtrace exits "
	  "with its status. With -a or -p, counting lasts until CMD exits." },
	{ "--metrics",
	  "ringtrace_syscall_duration_seconds (a histogram: the log2 buckets as le bounds in "
	  "seconds, cumulative, with +Inf, _sum and _count) and ringtrace_syscall_errors_total, "
	  "labelled comm, pid and syscall, in text format 0.0.4, for node_exporter's textfile "
	  "collector or promtool. FILE is written over as perf writes its outputs (a regular "
	  "file of the caller's), never through a symlink." },
	{ NULL, NULL },
};

const struct options_command trace_command = {
	.name = "trace",
	.usage = "ringtrace trace --summary [-p PID | -a] [-- CMD ARGS...]",
	.description = "Counts and times syscalls in the kernel, per process and syscall, until "
		       "SIGINT/SIGTERM, the command's exit or the -p processes', then prints the "
		       "summary perf trace -s prints: per process a header (comm (pid), events, "
		       "share) and a table of its syscalls (calls, errors, total, min, avg, max "
		       "in msec, and the relative standard deviation of the mean).",
	.options = trace_options_table,
	.stop_at_positional = true, /* what follows -- is the command */
	.details = trace_details,
};

static const struct options_entry merge_options_table[] = {
	{ 0 },
};

const struct options_command merge_command = {
	.name = "merge",
	.usage = "ringtrace merge DIR FILE",
	.description = "Writes the recording DIR (a perf.data directory: its header file and "
		       "per-CPU files) as one perf.data FILE (created, mode 0600, never over "
		       "a file nor through a symlink), the layout perf "
		       "record writes without --threads, for the tools that read no directory "
		       "(Hotspot's perfparser, perf inject): the header's attrs and features, "
		       "and every record of every file in one data section, in the order perf "
		       "script reads them. perf report and perf script read FILE as they read "
		       "DIR.",
	.options = merge_options_table,
	.stop_at_positional = true,
};

static const struct options_entry list_options_table[] = {
	{ 0 },
};

const struct options_command list_command = {
	.name = "list",
	.usage = "ringtrace list [PATTERN... | uprobe:BINARY | usdt:BINARY]",
	.description = "Lists the events record -e accepts (also record -e list): software "
		       "events, hardware events where the machine has a PMU, and tracepoints "
		       "as SYSTEM:NAME; with PATTERNs, as perf list filters them: hw, sw, "
		       "tracepoint, SYSTEM:NAME globs (sched:*), or a word an event's name "
		       "contains (sched_switch, clock). With uprobe:BINARY, the functions of "
		       "BINARY a uprobe can trace; with usdt:BINARY, its USDT (SDT) probes and "
		       "their arguments.",
	.options = list_options_table,
};

