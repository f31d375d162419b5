/* SPDX-License-Identifier: GPL-2.0-only */
/* record_options.c: record's option table, the one source of what its
 * getopt_long accepts, what its --help prints and what its man page says. */
#include "cli/command_options.h"

#include "capture/bpf_sampler.h"
#include "capture/event_spec.h"
#include "capture/usdt_multi.h"
#include "record/unwind_cache.h"
#include "record/unwind_mem_default.h"

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
	  NULL, RECORD_OPT_FILTER },
	{ "usdt-sites", 0, "N",
	  "attach a usdt: probe with at most N sites in its file (default "
	  OPTIONS_STR(USDT_SITES_DEFAULT_MULTI) " as one uprobe_multi link; "
	  OPTIONS_STR(USDT_SITES_DEFAULT_PERF_EVENTS) " on kernels before 6.6, a perf event "
	  "each); a probe with more is refused",
	  NULL, RECORD_OPT_USDT_SITES },
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
	  "with ehframe: memory for the unwind tables of every mapped file, e.g. 256M "
	  "(default: sized from the code the machine maps at the start, at least "
	  UNWIND_MEM_FLOOR_TEXT "); files beyond it are unwound by frame pointers",
	  NULL, RECORD_OPT_UNWIND_MEM },
	{ "unwind-tables", 0, "WHEN",
	  "with ehframe: mapped (default), a file's table compiled when a process maps it; or "
	  "sampled, once a sample's walk meets the file: less CPU and memory where many files "
	  "are mapped and few run (export -g's)",
	  NULL, RECORD_OPT_UNWIND_TABLES },
	{ "stack-copy-budget", 0, "SIZE",
	  "with ehframe: a stack with a frame in a file whose table is not loaded yet (a "
	  "program's first instants) is copied, as dwarf's, and unwound when read: at most SIZE "
	  "bytes of such copies a second on a CPU (default "
	  RECORD_DEFAULT_STACK_COPY_BUDGET_TEXT "; 0: none, frame pointers there)",
	  NULL, RECORD_OPT_STACK_COPY_BUDGET },
	{ "copy-budget", 0, "SIZE",
	  "data bytes in all of the files copied into DIR: binaries only a container sees "
	  "(DIR/.build-id), JITs' symbol maps and exited Python processes' (DIR/perf-PID.map), "
	  "e.g. 1G (default "
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
	{ "unwind-cache-size", 0, "SIZE",
	  "with ehframe: the files of --unwind-cache take at most SIZE, e.g. 64M (default "
	  UNWIND_CACHE_DEFAULT_SIZE_TEXT ", at least " UNWIND_CACHE_MIN_SIZE_TEXT "); the least "
	  "recently used are removed to make room for new ones",
	  NULL, RECORD_OPT_UNWIND_CACHE_SIZE },
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
	  "kernel ring size per CPU in pages, a power of two (default 256, 1 MiB, halved while "
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
	{ "switch-output", 0, "[MODE]",
	  "rotate: DIR becomes DIR.YYYYmmddHHMMSSCC (perf's name, the time of the switch) and a "
	  "new DIR begins, on SIGUSR2 (signal, the default), once DIR holds a size (B, K, M, G: "
	  "100M) or every time (s, m, h, d: 30s, 1h); each output a whole recording",
	  "long recordings", RECORD_OPT_SWITCH_OUTPUT },
	{ "switch-max-files", 0, "N", "with --switch-output: keep only the newest N outputs",
	  NULL, RECORD_OPT_SWITCH_MAX_FILES },
	{ "max-size", 0, "SIZE",
	  "stop as on SIGINT (drained, totals written) once the output holds SIZE (B, K, M, G)",
	  NULL, RECORD_OPT_MAX_SIZE },
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
	{ "keep-read-caps", 0, NULL,
	  "of the capabilities, keep cap_sys_ptrace and cap_dac_read_search after attaching, "
	  "where held (every other one is dropped): to read the mappings and files of "
	  "processes that start later as other users or in other mount namespaces (export "
	  "-g's sampling child, in a container)",
	  NULL, RECORD_OPT_KEEP_READ_CAPS },
	{ "verbose", 'v', NULL,
	  "the totals in detail at the end: per CPU, the unwinder's and off-CPU's accounts, the "
	  "files kept, the BPF programs' run times (when kernel.bpf_stats_enabled is 1); twice "
	  "(-vv), libbpf's messages too",
	  NULL, RECORD_OPT_VERBOSE },
	{ "quiet", 'q', NULL,
	  "print nothing but losses: no live progress line (elapsed, samples/s, lost, bytes, "
	  "once a second, shown when stderr is a terminal), no summary at the end unless "
	  "something was lost",
	  NULL, RECORD_OPT_QUIET },
	{ "debug-drain-delay-ms", 0, "MS", "test knob: a slow drain", NULL,
	  RECORD_OPT_DEBUG_DRAIN_DELAY },
	{ "debug-locked-claims", 0, NULL,
	  "test knob: the own rings claimed by a locked add by every program", NULL,
	  RECORD_OPT_DEBUG_LOCKED_CLAIMS },
	{ "debug-full-steps", 0, NULL,
	  "test knob: -g's walks take every frame's row and step the long way", NULL,
	  RECORD_OPT_DEBUG_FULL_STEPS },
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
	  "the value in quotes. The filter applies to every event of the -e before it (each name "
	  "of its list, every tracepoint of its globs), as perf's does; give one --filter an "
	  "-e.\n"
	  "It is evaluated in the kernel by ringtrace's own program, before anything is "
	  "written to a ring: a hit left out costs no room and is counted in the totals ("
	  "\"--filter left out N tracepoint hits\"), and -c thins what passes, as perf's does. "
	  "common_pid is the thread's id; common_flags and common_preempt_count read 0 (the kernel "
	  "hands a BPF program a pointer where they are). A string is compared on its first 254 "
	  "bytes; at most 16 comparisons, 63 bytes of a "
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
	  "taking 17 bytes of the kernel's arrays. The default, for a recording of every "
	  "process (-a, -C, -G): the executable bytes the machine's processes map at the start "
	  "(each file once, /proc read for at most " OPTIONS_STR(UNWIND_MEM_SCAN_MS) " ms), a "
	  "row for every " OPTIONS_STR(UNWIND_MEM_TEXT_BYTES_A_ROW) " bytes of them (about 2.5 "
	  "times what the tables take), at least " UNWIND_MEM_FLOOR_TEXT " and at most a "
	  "sixteenth of the machine's memory; for some processes (-p, -- CMD), "
	  UNWIND_MEM_FLOOR_TEXT ". -v tells what it was sized from. When stacks were walked "
	  "by frame pointers for want of room, the end of the recording says how many, and "
	  "that this is the option to raise." },
	{ "--unwind-tables",
	  "sampled: a file is compiled (or read from the cache) only once a walk met a frame in "
	  "it with no table, and that walk and those until its table is loaded go by frame "
	  "pointers there, or copy the stack (--stack-copy-budget); the tables of files no "
	  "process maps any more are forgotten. The files left uncompiled, those compiled so "
	  "and those gone before it are counted in the totals (-v)." },
	{ "--stack-copy-budget",
	  "A file's table comes some milliseconds after the file is mapped (read from the "
	  "cache, or compiled), and a new program's first samples would have a frame in a "
	  "file without one: those stacks are copied instead (the registers and the stack from "
	  "sp, the main thread's only to its top, at most " OPTIONS_STR(RT_STACK_USER_DEFAULT)
	  " bytes) and unwound by report, script and perf as dwarf's are. The copies within "
	  "the budget and those over it are counted in the totals (-v)." },
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
	{ "--unwind-cache-size",
	  "The recording (or the exporter's) that writes a new table makes its room: the files "
	  "read back least recently (each read sets its mtime) are removed first, at most "
	  OPTIONS_STR(UNWIND_CACHE_MAX_ENTRIES) " files are kept in all, and a recording keeps at "
	  "most a quarter of SIZE (and of the files) for files keyed by inode (those not root's "
	  "alone); the rest are compiled and used, not kept. Nothing but the cache's own regular "
	  "files there is ever removed. 0 is refused: --unwind-cache none keeps nothing. The "
	  "totals (-v) count what was evicted and what was not kept." },
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
	{ "--switch-output",
	  "As perf record --switch-output: write MODE as --switch-output=MODE (a word after a "
	  "bare --switch-output is taken as MODE unless it starts with -). A size counts the "
	  "records put into the output since it began; a time is checked after each drain (every "
	  "100 ms at least). The drain thread only marks where each CPU's records change output: "
	  "the writer thread finishes the old output (its DIR/totals holds its own counts), "
	  "renames it, and begins the new DIR with the header, the tracepoint formats and, in "
	  "each data.cpuN, the side-band of the processes alive (comms, mappings; those that "
	  "exited over a second before the switch are left out), so perf report -i, perf script "
	  "-i and ringtrace read each output alone. Nothing is lost at a switch: a sample "
	  "drained before it is in the old output, one after in the new. At the end the last "
	  "output is renamed too, as perf does. A name is never taken over (what stands at it is "
	  "neither replaced nor followed; DIR's directory is held open): when DIR.YYYYmmddHHMMSSCC is "
	  "taken (by another user's symlink, say) the output is named with .1 to .9 after it, "
	  "then .r and 16 random hex digits; when DIR is, the next output is written in DIR.next. "
	  "and 16 random hex digits until it is named; each such name is said in one line and "
	  "counted in the totals. Binaries copied from containers and JITs' maps "
	  "stay in the output that was current when they were copied." },
	{ "--switch-max-files",
	  "As perf's: once N outputs are finished, each further one removes the oldest." },
	{ "--max-size",
	  "The size counts the records put into the current output (with --switch-output, "
	  "since its switch); records drained in the same pass are still written, so the output "
	  "may pass SIZE by a little, and the totals stay exact." },
	{ "--verbose", "libbpf's messages (-vv) include the verifier's log." },
	{ "--debug-drain-delay-ms",
	  "The drain sleeps MS ms before each pass over the kernel's rings, to provoke losses "
	  "there." },
	{ "--debug-locked-claims",
	  "A tracepoint's and a perf event's programs claim a CPU's own ring with a locked add, "
	  "as a uprobe's does and as every program does where the kernel offers no global "
	  "membarrier, instead of a plain store: that path is tested with it." },
	{ "--debug-full-steps",
	  "A -g walk looks each frame's mapping and row up and steps by the kernel side's "
	  "step function, without the rows kept by pc and the step taken inline from the "
	  "stack already read: that the two unwind alike is tested with it." },
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
