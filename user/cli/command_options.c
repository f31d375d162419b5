/* SPDX-License-Identifier: GPL-2.0-only */
/* command_options.c: the option table of every subcommand, the one source of
 * what getopt_long accepts, what --help prints and what the man pages say of
 * each option (its details), and the check of a value two commands take
 * alike (-F). */
#include "cli/command_options.h"

#include <errno.h>
#include <inttypes.h>

#include "capture/bpf_sampler.h"
#include "capture/perf_events.h"
#include "export/metrics_server.h"
#include "lib/log.h"
#include "lib/option_values.h"
#include "record/unwind_cache.h"
#include "report/flamegraph.h"
#include "report/report.h"

static const struct options_entry record_options_table[] = {
	{ "event", 'e', "EVENTS",
	  "events, comma-separated, repeatable (default cpu-clock): cpu-clock, task-clock, "
	  "page-faults, context-switches, cpu-migrations, minor-faults, major-faults, hardware "
	  "events where there is a PMU, SYSTEM:TRACEPOINT; NAME:u / NAME:k for user or kernel "
	  "only; -e list lists them",
	  "what", RECORD_OPT_EVENT },
	{ "filter", 0, "EXPR",
	  "keep only the hits of the tracepoints of the -e before it that EXPR accepts, "
	  "evaluated in the kernel: perf's (ftrace's) syntax, e.g. 'prev_state == 0 && "
	  "comm ~ \"kworker*\"'",
	  "what", RECORD_OPT_FILTER },
	{ "freq", 'F', "HZ",
	  "sample at HZ per CPU (default " OPTIONS_STR(RECORD_DEFAULT_FREQ) "; not tracepoints)",
	  NULL, RECORD_OPT_FREQ },
	{ "count", 'c', "PERIOD", "sample every PERIOD events (ns for clocks; tracepoints too)",
	  NULL, RECORD_OPT_COUNT },
	{ NULL, 'g', NULL,
	  "record kernel and user callchains, user stacks unwound in the kernel from .eh_frame "
	  "(--call-graph ehframe)",
	  NULL, RECORD_OPT_CALL_GRAPH },
	{ "call-graph", 0, "MODE",
	  "ehframe (as -g: user stacks unwound in the kernel from tables compiled from .eh_frame, "
	  "frame pointers where there are none), fp (frame pointers only), or dwarf[,SIZE]: "
	  "kernel callchains, and the user registers and top SIZE "
	  "bytes of the user stack (default " OPTIONS_STR(RT_STACK_USER_DEFAULT) ", at most "
	  OPTIONS_STR(RT_STACK_USER_MAX) ") in each sample, unwound with DWARF CFI when read, as "
	  "perf record --call-graph dwarf; or ehframe+dwarf[,SIZE]: both in each sample, for "
	  "report --unwind-check (a diagnostic: perf shows such user stacks twice)",
	  NULL, RECORD_OPT_CALL_GRAPH_MODE },
	{ "unwind-mem", 0, "SIZE",
	  "with ehframe: memory for the unwind tables of every mapped file, e.g. 64M (default "
	  RECORD_DEFAULT_UNWIND_MEM_TEXT "); files beyond it are unwound by frame pointers",
	  NULL, RECORD_OPT_UNWIND_MEM },
	{ "copy-budget", 0, "SIZE",
	  "data bytes in all of the files copied into DIR: binaries only a container sees "
	  "(DIR/.build-id) and JITs' symbol maps (DIR/perf-PID.map), e.g. 1G (default "
	  RECORD_DEFAULT_COPY_BUDGET_TEXT "; holes of sparse files cost nothing); a copy that "
	  "would pass it is refused and counted",
	  NULL, RECORD_OPT_COPY_BUDGET },
	{ "off-cpu", 0, NULL,
	  "also record the time tasks in scope sleep off CPU, as an event named offcpu-time "
	  "(perf record --off-cpu): one sample per block, its period the nanoseconds off CPU, "
	  "with its kernel and user callchain",
	  NULL, RECORD_OPT_OFF_CPU },
	{ "off-cpu-min", 0, "TIME",
	  "with --off-cpu: no sample for blocks shorter than TIME, e.g. 500us, 1ms (default "
	  RECORD_DEFAULT_OFF_CPU_MIN_TEXT "); they are counted in the totals",
	  NULL, RECORD_OPT_OFF_CPU_MIN },
	{ "unwind-cache", 0, "DIR",
	  "with ehframe: keep the compiled unwind tables in DIR between runs, by build-id (or "
	  "device, inode, mtime and size), or none (default " UNWIND_CACHE_DEFAULT_DIR " when run "
	  "as root, else none); a file there that is corrupt, or that another user could have written, is rebuilt",
	  NULL, RECORD_OPT_UNWIND_CACHE },
	{ "all-cpus", 'a', NULL, "every CPU, every task", "where", RECORD_OPT_ALL_CPUS },
	{ "cpu", 'C', "CPUS", "only these CPUs, e.g. 0,2-3 (with -p/-t: the tasks there)",
	  NULL, RECORD_OPT_CPU },
	{ "pid", 'p', "PIDS", "only these processes (and what they fork, unless -i)",
	  NULL, RECORD_OPT_PID },
	{ "tid", 't', "TIDS", "only these threads", NULL, RECORD_OPT_TID },
	{ "per-thread", 0, NULL, "events follow each thread instead of watching CPUs, one ring",
	  NULL, RECORD_OPT_PER_THREAD },
	{ "no-inherit", 'i', NULL,
	  "only the threads there at the start (the command's first): no new thread, no child",
	  NULL, RECORD_OPT_NO_INHERIT },
	{ "cgroup", 'G', "PATH",
	  "with -a/-C: only tasks in this cgroup v2 directory and below (absolute, or relative "
	  "to the cgroup v2 mount)",
	  NULL, RECORD_OPT_CGROUP },
	{ "cgroup-exact", 0, NULL, "with -G: not the cgroups below it", NULL, RECORD_OPT_CGROUP_EXACT },
	{ "all-cgroups", 0, NULL, "record every sample's cgroup (report --sort cgroup)",
	  NULL, RECORD_OPT_ALL_CGROUPS },
	{ NULL, 0, "-- CMD ARGS",
	  "run CMD; alone it is the target (followed with its children), with -a/-C/-p/-t it "
	  "sets the duration",
	  NULL, 0 },
	{ "transport", 0, "T",
	  "ring (ringtrace's own rings in BPF memory, written without a helper; the default), "
	  "ringbuf (BPF ring buffers) or perfbuf (a perf event array: one perf ring per CPU)",
	  "transport and output", RECORD_OPT_TRANSPORT },
	{ "mmap-pages", 'm', "N",
	  "kernel ring size per CPU in pages, a power of two (default 128, 512 KiB, halved while "
	  "the rings of all CPUs would pass 64 MiB or a 64th of memory, 16 at least)",
	  NULL, RECORD_OPT_MMAP_PAGES },
	{ "staging-size", 0, "S",
	  "per-CPU staging ring between draining and writing, a power of two, e.g. 8M (default "
	  RECORD_DEFAULT_STAGING_TEXT ")",
	  NULL, RECORD_OPT_STAGING_SIZE },
	{ "output", 'o', "DIR", "output directory (default " RECORD_DEFAULT_OUTPUT ")",
	  NULL, RECORD_OPT_OUTPUT },
	{ "force", 0, NULL,
	  "reuse DIR if it exists and is yours (without it, a recording in DIR becomes DIR.old)",
	  NULL, RECORD_OPT_FORCE },
	{ "overwrite", 0, NULL,
	  "keep only the newest samples per CPU in memory (the staging ring, or with perfbuf the "
	  "kernel's backward perf rings) and write DIR/snapshot-NNN on each trigger and at the "
	  "end, with exact counts of what was overwritten; triggers: SIGUSR2, ringtrace "
	  "snapshot DIR, --trigger and --trigger-runqlat",
	  "flight recorder", RECORD_OPT_OVERWRITE },
	{ "trigger", 0, "EVENT", "a snapshot on each hit of tracepoint EVENT (SYSTEM:NAME)",
	  NULL, RECORD_OPT_TRIGGER },
	{ "trigger-runqlat", 0, "MS", "a snapshot when a task waited more than MS ms to run",
	  NULL, RECORD_OPT_TRIGGER_RUNQLAT },
	{ "max-snapshots", 0, "N", "at most N snapshots (default: no limit)",
	  NULL, RECORD_OPT_MAX_SNAPSHOTS },
	{ "snapshots-overlap", 0, NULL,
	  "each snapshot holds all the memory holds, the previous snapshot's samples not yet "
	  "overwritten included, its accounting counted from the start",
	  NULL, RECORD_OPT_SNAPSHOTS_OVERLAP },
	{ "metrics", 0, "ADDR:PORT",
	  "serve Prometheus metrics of this recording there (as ringtrace export, from the "
	  "samples recorded)",
	  "other", RECORD_OPT_METRICS },
	{ "exit-with-parent", 0, "PID",
	  "stop as on SIGTERM when PID, ringtrace's parent, ends (for a program that runs "
	  "record as its child)",
	  NULL, RECORD_OPT_EXIT_WITH_PARENT },
	{ "keep-caps", 0, NULL,
	  "keep the capabilities after attaching (by default every one is dropped once the "
	  "events are attached and the files opened)",
	  NULL, RECORD_OPT_KEEP_CAPS },
	{ "verbose", 'v', NULL,
	  "the totals in detail at the end: per CPU, the unwinder's and off-CPU's accounts, the "
	  "files kept; twice (-vv), libbpf's messages too",
	  NULL, RECORD_OPT_VERBOSE },
	{ "quiet", 'q', NULL,
	  "no live progress line (elapsed, samples/s, lost, bytes, once a second, shown when "
	  "stderr is a terminal)",
	  NULL, RECORD_OPT_QUIET },
	{ "debug-drain-delay-ms", 0, "MS", "test knob: a slow drain", NULL,
	  RECORD_OPT_DEBUG_DRAIN_DELAY },
	{ "debug-writer-delay-ms", 0, "MS", "test knob: a slow disk", NULL,
	  RECORD_OPT_DEBUG_WRITER_DELAY },
	{ "debug-start-delay-ms", 0, "MS",
	  "test knob: the events loaded and attached MS later (a slow start)", NULL,
	  RECORD_OPT_DEBUG_START_DELAY },
	{ "debug-start-tables-delay-ms", 0, "MS",
	  "test knob: -g's tables of what ran at the start built MS later", NULL,
	  RECORD_OPT_DEBUG_START_TABLES_DELAY },
	{ 0 },
};

/* What record's man page says of its options beyond their help. */
static const struct options_detail record_details[] = {
	{ "--event",
	  "Software events also take perf's short names: faults (page-faults), cs "
	  "(context-switches), migrations (cpu-migrations). Hardware events are cycles, "
	  "instructions and the others perf names. Tracepoints are written SYSTEM:NAME "
	  "(sched:sched_switch, syscalls:sys_enter_getpid) or as the globs perf takes ('ext4:*', "
	  "'sched:sched_wak*'): every tracepoint matched, by system then name, as perf adds them. "
	  "A recording holds at most " OPTIONS_STR(EVENT_SPEC_MAX) " events, the room of an "
	  "event's number in its samples' ids: a glob matching more ('syscalls:*', 720) is "
	  "refused, naming its count.\n"
	  "User-space probes are named as bpftrace names them: uprobe:BINARY:FUNC[+OFFSET], "
	  "uretprobe:BINARY:FUNC, usdt:BINARY:PROVIDER:NAME; ringtrace list uprobe:BINARY and "
	  "ringtrace list usdt:BINARY list what BINARY has. docs/recording.md (User-space "
	  "probes) tells how BINARY is found and what the probes' samples hold.\n"
	  "ringtrace list (or -e list) prints every event; ringtrace list PATTERN... filters "
	  "them as perf list PATTERN does." },
	{ "--filter",
	  "EXPR is perf's (the kernel's event filter) syntax: FIELD OP VALUE, joined by &&, || "
	  "and !, with parentheses. FIELD is a field of the tracepoint's format (its format file, "
	  "/sys/kernel/tracing/events/SYSTEM/NAME/format), a common field (common_pid), or cpu "
	  "and comm (the current task's). Numbers compare with == != < <= > >= and & (a bit "
	  "set), as decimal or 0x hex; strings (char arrays, __data_loc strings, char * fields "
	  "read as kernel strings, or as user strings with FIELD.ustring) with == and != (the "
	  "whole string) and ~ (a glob of * and ?; a backslash takes the next byte as it is), "
	  "the value in quotes. The filter applies to the events the -e before it named last "
	  "(every tracepoint of a glob), as perf's does; give one --filter an event.\n"
	  "It is evaluated in the kernel by ringtrace's own program, before anything is "
	  "written to a ring: a hit left out costs no room and is counted in the totals ("
	  "\"--filter left out N tracepoint hits\"), and -c thins what passes, as perf's does. "
	  "A string is compared on its first 254 bytes; at most 16 comparisons, 63 bytes of a "
	  "string's pattern; a filter that runs out of steps (a glob over a long string) keeps "
	  "the hit and counts it. Where ringtrace differs from the kernel's filters: \"*x\" "
	  "matches a char array (comm) that ends in x, where the kernel compares the end of "
	  "its whole buffer and matches none; character classes ([a-z]) are refused. A fault "
	  "in EXPR is one line naming its column, and exit status 2." },
	{ "--freq",
	  "For software and hardware events: tracepoints keep every hit unless -c thins them. "
	  "At most kernel.perf_event_max_sample_rate, a sysctl the kernel lowers when samples "
	  "take long: a higher HZ is refused, naming it." },
	{ "--count",
	  "Instead of -F; PERIOD is in nanoseconds for the clocks (cpu-clock, task-clock). "
	  "Tracepoints, which keep every hit otherwise, are thinned by -c too; user-space probes "
	  "are not." },
	{ "-g",
	  "Up to " OPTIONS_STR(RT_MAX_STACK_DEPTH) " frames each, kernel and user. The tables "
	  "are compiled from each mapped file's .eh_frame (within --unwind-mem, kept between runs "
	  "in --unwind-cache); a file with no table is unwound by frame pointers. docs/stacks.md "
	  "tells how, and how it compares with perf's." },
	{ "--call-graph",
	  "Each callchain holds up to " OPTIONS_STR(RT_MAX_STACK_DEPTH) " frames; docs/stacks.md "
	  "compares the modes.\n"
	  "fp: kernel and user callchains, unwound by frame pointers only.\n"
	  "dwarf: SIZE is rounded up to a multiple of 8, as perf rounds it; the stack copies are "
	  "unwound when report or script reads the recording.\n"
	  "ehframe+dwarf: the user frames unwound in the kernel and the registers and stack copy "
	  "of dwarf in each sample. perf report and perf script show such a sample's user stack "
	  "twice: the callchain's, then their own unwinding of the copy." },
	{ "--unwind-mem",
	  "Kernel memory: the rows of every file's unwind table and their page index, a row "
	  "taking 17 bytes of the kernel's arrays. The files beyond it are counted in the "
	  "totals." },
	{ "--copy-budget",
	  "Holes of sparse files are kept as holes. The copies are made on a thread of their "
	  "own, never the one draining the rings." },
	{ "--off-cpu",
	  "The event offcpu-time is recorded beside the others (-e), each sample's callchain "
	  "where the task went to sleep; report --event offcpu-time reads it. docs/recording.md "
	  "(Off-CPU) tells how it is measured, how perf's differs and what it costs." },
	{ "--off-cpu-min",
	  "TIME is a number and its unit: ns, us, ms or s. The default is bcc offcputime's." },
	{ "--exit-with-parent",
	  "The kernel's parent-death signal, set after ringtrace started: one set by the "
	  "parent before its exec would be cleared when the binary has file capabilities "
	  "(setcap). PID must be the parent: if it has ended already, record exits at once "
	  "with status 1. export -g runs its sampling child so." },
	{ "--unwind-cache",
	  "docs/stacks.md (Tables cached on disk) tells what is kept and how a file there is "
	  "checked." },
	{ "--pid",
	  "Processes forked during ringtrace's start are followed too. Without a command, "
	  "recording lasts until they have all exited (as perf's), or SIGINT." },
	{ "--tid", "Without a command, recording lasts until they have exited, or SIGINT." },
	{ "--per-thread", "The threads of -p, -t or the command." },
	{ "--no-inherit",
	  "As perf's attr.inherit = 0: the threads of -p there at the start, or the command's "
	  "first thread." },
	{ "--cgroup",
	  "Also records every sample's cgroup and PERF_RECORD_CGROUP records, for report --sort "
	  "cgroup." },
	{ "--all-cgroups", "No sample is left out for its cgroup (-G filters)." },
	{ "-- CMD ARGS",
	  "Alone, CMD and its children are recorded on every CPU (perf's default mode) from "
	  "CMD's exec on, as perf's enable_on_exec: ringtrace's child waiting to exec it is never "
	  "sampled, a BPF program on sched_process_exec admits it. With -a, -C, -p or -t, "
	  "recording lasts until CMD exits. ringtrace exits with CMD's status." },
	{ "--transport",
	  "ringbuf: one BPF ring buffer per CPU (one in all with --per-thread), which ringtrace "
	  "maps and reads itself: it acquires the producer position and releases the consumer "
	  "position once per eighth of a ring, rather than after every record as libbpf 1.1 "
	  "does.\n"
	  "perfbuf: one BPF-output perf event per CPU, whose ring ringtrace maps and reads "
	  "itself: acquire data_head, release data_tail, records that wrap, watermark wakeups." },
	{ "--mmap-pages",
	  "The size of each BPF ring buffer (ringbuf) or perf ring (perfbuf); the default is "
	  "perf's." },
	{ "--staging-size",
	  "Between the thread that drains the kernel's rings and the thread that writes the "
	  "files. Only the pages of the largest backlog are ever touched, as the ring starts "
	  "again at its start whenever the writer has emptied it. Under --overwrite with "
	  "ringbuf, it is what each CPU keeps." },
	{ "--output",
	  "A recording already in DIR becomes DIR.old; anything else there is refused unless "
	  "--force." },
	{ "--force", "DIR must be a real directory owned by you; its data* files are replaced." },
	{ "--overwrite",
	  "docs/flight-recorder.md tells what is kept and how each snapshot's counts add up." },
	{ "--trigger",
	  "Only hits in the recording's scope count (the command, -p, -t, -G, -C: the "
	  "sampler's own filter, shared), seen by a BPF program attached to the tracepoint, as "
	  "perf's --switch-output-event, which perf opens in the recording's scope too." },
	{ "--trigger-runqlat",
	  "BPF programs on sched_wakeup, sched_wakeup_new and sched_switch time each wait in "
	  "the kernel. The waits of any task of the machine count, not only those in scope: a "
	  "slow run queue slows the recording's target too." },
	{ "--max-snapshots",
	  "The end of the recording takes a last snapshot, unless N were taken already." },
	{ "--verbose", "libbpf's messages (-vv) include the verifier's log." },
	{ "--debug-drain-delay-ms",
	  "The drain sleeps MS ms before each pass over the kernel's rings, to provoke losses "
	  "there." },
	{ "--debug-writer-delay-ms",
	  "The writer sleeps MS ms after each pass that wrote, to provoke losses in the staging "
	  "ring." },
	{ "--debug-start-delay-ms",
	  "What -p follows of the forks made meanwhile is tested with it." },
	{ "--debug-start-tables-delay-ms", "As on a machine of many processes." },
	{ NULL, NULL },
};

/* What completion offers for the values of record's options. */
static const struct options_choices record_choices[] = {
	{ "event", NULL, "\"${COMP_WORDS[0]}\" list | grep -F \"[\" | grep -vw BINARY", true },
	{ "call-graph", "ehframe fp dwarf ehframe+dwarf", NULL, false },
	{ "transport", "ringbuf perfbuf ring", NULL, false },
	{ NULL, NULL, NULL, false },
};

const struct options_command record_command = {
	.name = "record",
	.usage = "ringtrace record [-e EVENTS] [-a | -C CPUS | -p PIDS | -t TIDS] [-G CGROUP]\n"
		 "                 [-F HZ | -c PERIOD] [-g] [--off-cpu [--off-cpu-min TIME]] [-o DIR]\n"
		 "                 [-m PAGES] [-- CMD ARGS...]",
	.description = "Samples through BPF and writes a perf.data directory (DIR/data and "
		       "DIR/data.cpuN) that ringtrace report and perf report read.",
	.options = record_options_table,
	.epilog = "Without a command, recording stops on SIGINT (Ctrl-C) or SIGTERM.",
	.stop_at_positional = true, /* what follows -- or the first word is the command */
	.choices = record_choices,
	.details = record_details,
};

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
	  "zooms on click and searches (Ctrl-F or Search); kernel frames end in _[k]",
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
	{ "comm", 0, "COMM", "only samples of threads named COMM", NULL, REPORT_OPT_COMM },
	{ "pid", 0, "PID", "only samples of process PID", NULL, REPORT_OPT_PID },
	{ "cpu", 0, "CPUS", "only samples taken on these CPUs (0,2-3)", NULL, REPORT_OPT_CPU },
	{ "cgroup", 0, "PATH", "only samples of this cgroup (as --sort cgroup prints it)",
	  NULL, REPORT_OPT_CGROUP },
	{ "time", 0, "START,END",
	  "only samples in this time range, seconds as script prints them (either may be empty)",
	  NULL, REPORT_OPT_TIME },
	{ "kallsyms", 0, "FILE", "kernel symbols (default /proc/kallsyms)",
	  "symbols", REPORT_OPT_KALLSYMS },
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
	.usage = "ringtrace report [DIR] [--sort KEYS] [--children] [-g caller|callee] [filters]\n"
		 "                 [--stdio]\n"
		 "ringtrace report [DIR] --folded | --flamegraph FILE.svg | --pprof FILE [filters]\n"
		 "ringtrace report --diff BEFORE AFTER --folded | --flamegraph FILE.svg [filters]\n"
		 "ringtrace report [DIR] --unwind-check [--comm COMM] [--pid PID]",
	.description = "Prints where the samples of a recording (default " REPORT_DEFAULT_INPUT
		       ") fell, by overhead; or their stacks, folded, as a flame graph or as a pprof "
		       "profile.",
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
	{ "symfs", 0, "DIR", "look for binaries and their debug files under DIR (as perf's --symfs)",
	  NULL, SCRIPT_OPT_SYMFS },
	{ 0 },
};

const struct options_command script_command = {
	.name = "script",
	.usage = "ringtrace script [DIR] [-F FIELDS] [--ns] [-G] [--show-lost-events] "
		 "[--show-lost-samples]",
	.description = "Prints every sample of a recording (default " REPORT_DEFAULT_INPUT
		       "), one per line in time order across CPUs, as perf script (perf 6.1) "
		       "prints them: comm, tid, [cpu], time, period, event, then ip sym+off "
		       "(dso), or one such line per callchain frame and a blank line; "
		       "tracepoints by their print format.",
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
	  "seconds, as Go's net/http/pprof; pid=, comm=, cgroup= and container= narrow it",
	  NULL, EXPORT_OPT_PROFILES },
	{ "unwind-mem", 0, "SIZE",
	  "with -g: kernel memory for the unwind tables of the files mapped at once, e.g. 32M "
	  "(default " EXPORT_DEFAULT_UNWIND_MEM "); the tables of files no process maps are "
	  "evicted when room is needed",
	  NULL, EXPORT_OPT_UNWIND_MEM },
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
		 "                 [-g [--unwind-mem SIZE]]",
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

int parse_sample_freq(const char *text, uint64_t *freq)
{
	uint64_t v, limit;
	int r;

	if ((r = option_parse_u64("-F", text, 1, 1000000, &v)))
		return r;
	limit = perf_max_sample_rate();
	if (limit && v > limit) {
		rt_error("-F %" PRIu64 " is above the kernel's limit, kernel.perf_event_max_sample_rate = %" PRIu64
			 " (the kernel lowers it when samples take long): give -F %" PRIu64
			 " or less, or raise the sysctl", v, limit, limit);
		return -EINVAL;
	}
	*freq = v;
	return 0;
}
