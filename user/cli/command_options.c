/* SPDX-License-Identifier: GPL-2.0-only */
/* command_options.c: the option table of every subcommand but record, the one source of
 * what getopt_long accepts, what --help prints and what the man pages say of
 * each option (its details). */
#include "cli/command_options.h"


#include "capture/perf_events.h"
#include "export/metrics_server.h"
#include "lib/option_values.h"
#include "record/unwind_cache.h"
#include "symbols/kallsyms_disk.h"
#include "report/flamegraph.h"
#include "report/report.h"
#include "sys/container_names.h"

static const struct options_entry report_options_table[] = {
	{ "input", 'i', "DIR", "the recording (also the first argument)", NULL, REPORT_OPT_INPUT },
	{ "sort", 's', "KEYS",
	  "group by these keys, comma-separated, from comm, pid, tid, dso, sym, cpu, cgroup "
	  "(default " REPORT_DEFAULT_SORT ")",
	  NULL, REPORT_OPT_SORT },
	{ "children", 0, NULL,
	  "also credit every caller on a sample's stack (Children column; with callchains)",
	  NULL, REPORT_OPT_CHILDREN },
	{ "no-children", 0, NULL, "only the sampled function (Self; the default)",
	  NULL, REPORT_OPT_NO_CHILDREN },
	{ "call-graph", 'g', "[ORDER]",
	  "each row's call graph under it, as perf report --stdio -g prints it (the same lines; "
	  "the rows keep their columns): caller, callers first from the root down (-g alone, "
	  "as perf's), or callee, the row's function first, then its callers; perf's "
	  "graph,THRESHOLD[,LIMIT],ORDER leaves out branches under THRESHOLD percent of the "
	  "event (default 0.5, and --percent-limit's, as perf's) and prints at most LIMIT "
	  "branches a level; ORDER left out: callee, caller with --children (perf's). none: no "
	  "graph. perf's other print types (flat, fractal, folded), keys (address, srcline) and "
	  "values (period, count) are not supported. Needs a recording made with -g",
	  NULL, REPORT_OPT_CALL_GRAPH },
	{ "show-nr-samples", 'n', NULL,
	  "the Samples column (always shown: accepted as perf report's -n, whose columns the "
	  "table's are)",
	  NULL, REPORT_OPT_SHOW_NR_SAMPLES },
	{ "header", 0, NULL,
	  "first the recording's header as perf report --header prints it (the features "
	  "ringtrace writes: host, kernel, command line, events, CPUs, clock), then the table",
	  NULL, REPORT_OPT_HEADER },
	{ "header-only", 0, NULL, "only the recording's header, as perf report --header-only",
	  NULL, REPORT_OPT_HEADER_ONLY },
	{ "stdio", 0, NULL,
	  "plain text table (the default), never through a pager and never cut short (when "
	  "stdout is a terminal, the table goes through $PAGER, or less, and shows the first "
	  OPTIONS_STR(REPORT_TERMINAL_ROWS) " rows of each event, a last line saying how many "
	  "more there are)",
	  NULL, REPORT_OPT_STDIO },
	{ "folded", 0, NULL,
	  "one line per unique stack, root first, and its samples (Brendan Gregg's folded "
	  "format)",
	  NULL, REPORT_OPT_FOLDED },
	{ "flamegraph", 0, "FILE.svg",
	  "an SVG flame graph (- for stdout) that shows as an image anywhere and, in a browser, "
	  "zooms on click, searches (Ctrl-F or Search) and, taller than the window, opens "
	  "scrolled down to its root; kernel frames end in _[k]",
	  NULL, REPORT_OPT_FLAMEGRAPH },
	{ "title", 0, "TEXT", "the flame graph's title (default: ringtrace: DIR)", NULL,
	  REPORT_OPT_TITLE },
	{ "width", 0, "PIXELS",
	  "the flame graph's width (default " OPTIONS_STR(FLAMEGRAPH_DEFAULT_WIDTH) ")", NULL,
	  REPORT_OPT_WIDTH },
	{ "inverted", 0, NULL, "an icicle graph: the flame graph upside down, roots at the top",
	  NULL, REPORT_OPT_INVERTED },
	{ "percent-limit", 0, "PCT",
	  "the table leaves out rows under PCT percent (their children's with --children), "
	  "as perf report does",
	  NULL, REPORT_OPT_PERCENT_LIMIT },
	{ "diff", 0, "BEFORE",
	  "compare BEFORE with the recording (each a recording or a file of folded stacks), "
	  "BEFORE's samples scaled to the recording's total: --folded prints \"stack before "
	  "after\" lines, --flamegraph draws the recording's stacks red where they grew, blue "
	  "where they shrank",
	  NULL, REPORT_OPT_DIFF },
	{ "unwind-check", 0, NULL,
	  "of a recording made with --call-graph ehframe+dwarf: how many of each DSO's user "
	  "frames the kernel's unwinding and libdw's unwinding of the same samples' stack copies "
	  "agree on",
	  NULL, REPORT_OPT_UNWIND_CHECK },
	{ "pprof", 0, "FILE",
	  "a gzipped pprof profile (go tool pprof, Pyroscope, Parca, Grafana): samples and "
	  "cpu time by stack, with mappings, build-ids and comm, pid, tid, cpu, cgroup labels "
	  "(- for stdout)",
	  NULL, REPORT_OPT_PPROF },
	{ "event", 0, "NAME",
	  "only this event's samples (folded stacks and flame graphs: the recording's first "
	  "event without it)",
	  "filters", REPORT_OPT_EVENT },
	{ "comm", 0, "COMMS", "only samples of threads of these names, comma-separated (as script's)",
	  NULL, REPORT_OPT_COMM },
	{ "pid", 0, "PIDS", "only samples of these processes, comma-separated", NULL, REPORT_OPT_PID },
	{ "tid", 0, "TIDS", "only samples of these threads, comma-separated", NULL, REPORT_OPT_TID },
	{ "cpu", 0, "CPUS", "only samples taken on these CPUs (0,2-3)", NULL, REPORT_OPT_CPU },
	{ "cgroup", 0, "PATH", "only samples of this cgroup (as --sort cgroup prints it)",
	  NULL, REPORT_OPT_CGROUP },
	{ "time", 0, "START,END",
	  "only samples in this time range, seconds as script prints them (either may be empty)",
	  NULL, REPORT_OPT_TIME },
	{ "kallsyms", 0, "FILE", "kernel symbols (default /proc/kallsyms)",
	  "symbols", REPORT_OPT_KALLSYMS },
	{ "kallsyms-cache", 0, "DIR|none",
	  "keep /proc/kallsyms' table for the boot in DIR, read by the next report or script "
	  "(default " KALLSYMS_DISK_DEFAULT_DIR " as root, else none)",
	  NULL, REPORT_OPT_KALLSYMS_CACHE },
	{ "symfs", 0, "DIR", "look for binaries and their debug files under DIR (as perf's --symfs)",
	  NULL, REPORT_OPT_SYMFS },
	{ 0 },
};

static const struct options_choices report_choices[] = {
	{ "sort", "comm pid tid dso sym cpu cgroup", NULL, true },
	{ "call-graph", "caller callee graph none", NULL, true },
	{ NULL, NULL, NULL, false },
};

const struct options_command report_command = {
	.name = "report",
	.usage = "ringtrace report [DIR...] [--sort KEYS] [--children] [-g caller|callee] [filters]\n"
		 "                 [--stdio]\n"
		 "ringtrace report [DIR...] --folded | --flamegraph FILE.svg | --pprof FILE [filters]\n"
		 "ringtrace report --diff BEFORE AFTER --folded | --flamegraph FILE.svg [filters]\n"
		 "ringtrace report [DIR] --unwind-check [--comm COMM] [--pid PID]",
	.description = "Prints where the samples of a recording (default " REPORT_DEFAULT_INPUT
		       ") fell, by overhead; or their stacks, folded, as a flame graph or as a pprof "
		       "profile. Several outputs of a rotated recording (--switch-output), or its "
		       "base name once the outputs are all that is left, are read as one.",
	.options = report_options_table,
	.choices = report_choices,
};

static const struct options_entry script_options_table[] = {
	{ "input", 'i', "DIR", "the recording (also the first argument)", NULL, SCRIPT_OPT_INPUT },
	{ "fields", 'F', "[TYPE:]FIELDS",
	  "print these fields, comma-separated, from comm, tid, pid, cpu, time, period, event, "
	  "ip, sym, symoff, dso, trace (as perf script -F: +FIELD adds, -FIELD removes; TYPE sw, hw or "
	  "trace for those events only)",
	  NULL, SCRIPT_OPT_FIELDS },
	{ "ns", 0, NULL, "times to the nanosecond", NULL, SCRIPT_OPT_NS },
	{ "hide-call-graph", 'G', NULL, "no callchains", NULL, SCRIPT_OPT_HIDE_CALL_GRAPH },
	{ "show-lost-events", 0, NULL,
	  "also print PERF_RECORD_LOST records (the perf buffer's losses), as perf script does",
	  NULL, SCRIPT_OPT_SHOW_LOST_EVENTS },
	{ "show-lost-samples", 0, NULL,
	  "also print PERF_RECORD_LOST_SAMPLES records (the BPF ring's, the staging ring's and "
	  "the disk's losses) alike; perf 6.1 script never prints them",
	  NULL, SCRIPT_OPT_SHOW_LOST_SAMPLES },
	{ "comm", 0, "COMMS", "only samples of threads of these names, comma-separated (as perf script)",
	  "filters (samples only; lost records are printed whole)", SCRIPT_OPT_COMM },
	{ "pid", 0, "PIDS", "only samples of these processes, comma-separated", NULL, SCRIPT_OPT_PID },
	{ "tid", 0, "TIDS", "only samples of these threads, comma-separated", NULL, SCRIPT_OPT_TID },
	{ "cpu", 'C', "CPUS", "only samples taken on these CPUs (0,2-3)", NULL, SCRIPT_OPT_CPU },
	{ "time", 0, "START,END",
	  "only samples in this time range, seconds as script prints them (either may be empty)",
	  NULL, SCRIPT_OPT_TIME },
	{ "kallsyms", 0, "FILE", "kernel symbols (default /proc/kallsyms)",
	  "symbols", SCRIPT_OPT_KALLSYMS },
	{ "kallsyms-cache", 0, "DIR|none",
	  "keep /proc/kallsyms' table for the boot in DIR, read by the next report or script "
	  "(default " KALLSYMS_DISK_DEFAULT_DIR " as root, else none)",
	  NULL, SCRIPT_OPT_KALLSYMS_CACHE },
	{ "symfs", 0, "DIR", "look for binaries and their debug files under DIR (as perf's --symfs)",
	  NULL, SCRIPT_OPT_SYMFS },
	{ 0 },
};

const struct options_command script_command = {
	.name = "script",
	.usage = "ringtrace script [DIR...] [-F FIELDS] [--ns] [-G] [--show-lost-events] "
		 "[--show-lost-samples]",
	.description = "Prints every sample of a recording (default " REPORT_DEFAULT_INPUT
		       "), one per line in time order across CPUs, as perf script (perf 6.1) "
		       "prints them: comm, tid, [cpu], time, period, event, then ip sym+off "
		       "(dso), or one such line per callchain frame and a blank line; "
		       "tracepoints by their print format. Several outputs of a rotated "
		       "recording, or its base name, are read as one.",
	.options = script_options_table,
};

static const struct options_entry export_options_table[] = {
	{ "listen", 0, "ADDR:PORT",
	  "where to serve (default " METRICS_DEFAULT_LISTEN "; a non-loopback address only if "
	  "given here; [::1]:PORT for IPv6)",
	  NULL, EXPORT_OPT_LISTEN },
	{ "textfile", 0, "DIR",
	  "write DIR/" TEXTFILE_NAME " every interval for node_exporter's textfile "
	  "collector (without --listen: no HTTP)",
	  NULL, EXPORT_OPT_TEXTFILE },
	{ "interval", 0, "S",
	  "seconds between textfile writes (default " OPTIONS_STR(EXPORT_DEFAULT_INTERVAL_S) ")",
	  NULL, EXPORT_OPT_INTERVAL },
	{ "event", 'e', "EVENT", "the sampling event: cpu-clock (default) or task-clock",
	  NULL, EXPORT_OPT_EVENT },
	{ "freq", 'F', "HZ",
	  "samples per second per CPU (default " OPTIONS_STR(EXPORT_DEFAULT_FREQ) ")",
	  NULL, EXPORT_OPT_FREQ },
	{ "cgroup", 'G', "PATH", "only tasks in this cgroup v2 directory and below",
	  NULL, EXPORT_OPT_CGROUP },
	{ "top", 0, "N",
	  "comms named in ringtrace_comm_cpu_seconds_total; the rest are summed as \"other\" "
	  "(default " OPTIONS_STR(EXPORT_DEFAULT_TOP_COMMS) ")",
	  NULL, EXPORT_OPT_TOP },
	{ "cgroup-grace", 0, "S",
	  "seconds the series of a removed cgroup are still served before they are dropped "
	  "(default " OPTIONS_STR(EXPORT_DEFAULT_CGROUP_GRACE_S) ")",
	  NULL, EXPORT_OPT_CGROUP_GRACE },
	{ "web-config-file", 0, "FILE",
	  "TLS and basic auth, as the Prometheus exporters' --web.config.file: a YAML file with "
	  "tls_server_config (cert_file, key_file) and basic_auth_users (bcrypt hashes)",
	  NULL, EXPORT_OPT_WEB_CONFIG },
	{ NULL, 'g', NULL,
	  "also serve CPU profiles, every CPU sampled at -F with -g stacks: GET "
	  "/debug/pprof/profile?seconds=N (1-" OPTIONS_STR(PROFILE_MAX_SECONDS) ", default "
	  OPTIONS_STR(PROFILE_DEFAULT_SECONDS) ") answers a gzipped pprof profile of the next N "
	  "seconds, as Go's net/http/pprof; pid=, comm=, cgroup=, container= (an id), namespace=, "
	  "pod= and container_name= (names the container runtime gives) narrow it",
	  NULL, EXPORT_OPT_PROFILES },
	{ "unwind-mem", 0, "SIZE",
	  "with -g: kernel memory for the unwind tables of the files mapped at once, e.g. 32M "
	  "(default " EXPORT_DEFAULT_UNWIND_MEM "); the tables of files no process maps are "
	  "evicted when room is needed",
	  NULL, EXPORT_OPT_UNWIND_MEM },
	{ "unwind-cache-size", 0, "SIZE",
	  "with -g: the files of the unwind cache (" UNWIND_CACHE_DEFAULT_DIR ") take at most "
	  "SIZE, e.g. 64M (default " UNWIND_CACHE_DEFAULT_SIZE_TEXT ", at least "
	  UNWIND_CACHE_MIN_SIZE_TEXT ", under the volume given to it); the least recently used "
	  "are removed to make room for new ones",
	  NULL, EXPORT_OPT_UNWIND_CACHE_SIZE },
	{ "containerd-socket", 0, "PATH",
	  "where containerd is asked for the labels kubelet sets on a container (namespace, pod, "
	  "container names; its namespace " CONTAINERD_K8S_NAMESPACE "), by gRPC (default "
	  CONTAINERD_DEFAULT_SOCKET "; none: never); a socket root owns, in a directory only root "
	  "can change",
	  NULL, EXPORT_OPT_CONTAINERD_SOCKET },
	{ "crio-socket", 0, "PATH",
	  "where CRI-O is asked the same, on its info endpoint (default " CRIO_DEFAULT_SOCKET
	  "; none: never)",
	  NULL, EXPORT_OPT_CRIO_SOCKET },
	{ "docker-socket", 0, "PATH",
	  "where Docker Engine is asked the same, GET /containers/ID/json (default "
	  DOCKER_DEFAULT_SOCKET "; none: never)",
	  NULL, EXPORT_OPT_DOCKER_SOCKET },
	{ "off-cpu", 0, NULL,
	  "with -g: also serve off-CPU profiles, GET " OFFCPU_PROFILE_PATH "?seconds=N (or "
	  PROFILE_PATH "?type=offcpu): the time tasks slept off CPU, by the stack they slept in "
	  "(record --off-cpu; off unless given: it costs about 2 us at every context switch of the "
	  "machine, docs/exporter.md)",
	  NULL, EXPORT_OPT_OFF_CPU },
	{ "off-cpu-min", 0, "TIME",
	  "with --off-cpu: blocks shorter than TIME are left out, e.g. 100us (default "
	  EXPORT_DEFAULT_OFF_CPU_MIN ")",
	  NULL, EXPORT_OPT_OFF_CPU_MIN },
	{ 0 },
};

static const struct options_choices export_choices[] = {
	{ "event", "cpu-clock task-clock", NULL, false },
	{ NULL, NULL, NULL, false },
};

const struct options_command export_command = {
	.name = "export",
	.usage = "ringtrace export [--listen ADDR:PORT] [--textfile DIR [--interval S]]\n"
		 "                 [-e cpu-clock|task-clock] [-F HZ] [-G CGROUP] [--top N]\n"
		 "                 [--cgroup-grace S] [--web-config-file FILE]\n"
		 "                 [-g [--unwind-mem SIZE] [--unwind-cache-size SIZE]\n"
		 "                     [--off-cpu [--off-cpu-min TIME]]]\n"
		 "                 [--containerd-socket PATH] [--crio-socket PATH] [--docker-socket PATH]",
	.description = "Samples every CPU continuously, aggregates in BPF maps and serves "
		       "Prometheus metrics (text format 0.0.4) on http://ADDR:PORT/metrics (a "
		       "page linking to it on /), until SIGINT/SIGTERM; the textfile is removed "
		       "then.",
	.options = export_options_table,
	.choices = export_choices,
};

static const struct options_entry snapshot_options_table[] = {
	{ "wait", 'w', NULL,
	  "wait (up to " OPTIONS_STR(SNAPSHOT_WAIT_SECONDS) " s) until the recording's next snapshot is written",
	  NULL, SNAPSHOT_OPT_WAIT },
	{ 0 },
};

const struct options_command snapshot_command = {
	.name = "snapshot",
	.usage = "ringtrace snapshot [--wait] DIR|PID",
	.description = "Asks the flight recording writing into DIR (ringtrace record "
		       "--overwrite -o DIR), or the one running as PID, for a snapshot: "
		       "DIR/snapshot-NNN. The same as sending it SIGUSR2.",
	.options = snapshot_options_table,
	.stop_at_positional = true, /* the target is the last argument */
};

const struct options_command *const all_commands[] = {
	&record_command, &report_command, &script_command,
	&export_command, &snapshot_command, &merge_command, &list_command, &trace_command,
};

const unsigned int nr_all_commands = sizeof(all_commands) / sizeof(all_commands[0]);
