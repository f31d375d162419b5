/* SPDX-License-Identifier: GPL-2.0-only */
/* command_options.h: the option table of every subcommand (what getopt_long
 * accepts and --help prints), the ids their handlers switch on, the defaults. */
#ifndef RINGTRACE_COMMAND_OPTIONS_H
#define RINGTRACE_COMMAND_OPTIONS_H

#include "export/serve.h"
#include "export/textfile.h"
#include "lib/options.h"

/* Defaults, written into the help text as they are. */
#define RECORD_DEFAULT_FREQ 999
/* The largest ring the kernel makes: a BPF ring's size is a u32 power of two. */
#define RECORD_MAX_RING_PAGES ((1u << 31) / 4096)
#define RECORD_DEFAULT_STAGING_BYTES (8u << 20)
#define RECORD_DEFAULT_STAGING_TEXT "8M" /* RECORD_DEFAULT_STAGING_BYTES in the help */
#define RECORD_DEFAULT_OUTPUT "ringtrace.data"
#define RECORD_DEFAULT_STACK_COPY_BUDGET (1ULL << 20)
#define RECORD_DEFAULT_STACK_COPY_BUDGET_TEXT "1M" /* ...its help */
#define RECORD_DEFAULT_COPY_BUDGET (128ULL << 20)
#define RECORD_DEFAULT_COPY_BUDGET_TEXT "128M"
#define RECORD_DEFAULT_OFF_CPU_MIN_NS 1000ULL
#define RECORD_DEFAULT_OFF_CPU_MIN_TEXT "1us" /* RECORD_DEFAULT_OFF_CPU_MIN_NS in the help */
#define REPORT_DEFAULT_INPUT "ringtrace.data"
#define REPORT_DEFAULT_SORT "comm,dso,sym"
#define EXPORT_DEFAULT_FREQ 99
#define EXPORT_DEFAULT_TOP_COMMS 20
/* export -g's child's --unwind-mem: a quarter of record's floor. Its rows
 * map is mapped whole into the child (it counts in its RSS from the start),
 * and an always-on agent stays within 64 MiB. It holds the tables of the
 * files mapped at once (those no process maps are evicted when room is
 * needed): scenario 7's make -j2 C build needs 11.0 MiB in all, cc1's table
 * alone 7.8 (docs/BENCHMARKS.md); a file that finds no room is unwound by
 * frame pointers, counted, and tried again a second later. */
#define EXPORT_DEFAULT_UNWIND_MEM "16M"
/* export --off-cpu's --off-cpu-min: longer than record's, so that the short
 * blocks of a busy machine do not fill the flight recording a profile's
 * window is cut from (docs/exporter.md) */
#define EXPORT_DEFAULT_OFF_CPU_MIN "1ms"
#define SNAPSHOT_WAIT_SECONDS 30
/* report's and script's --kallsyms-cache (NULL: the default), for the
 * kernel's table read from kallsyms (NULL: /proc/kallsyms) */
void kallsyms_cache_option_apply(const char *arg, const char *kallsyms);

enum record_option_id {
	RECORD_OPT_EVENT = 1,
	RECORD_OPT_FILTER,
	RECORD_OPT_USDT_SITES,
	RECORD_OPT_FREQ,
	RECORD_OPT_COUNT,
	RECORD_OPT_CALL_GRAPH,
	RECORD_OPT_CALL_GRAPH_MODE,
	RECORD_OPT_UNWIND_MEM,
	RECORD_OPT_UNWIND_TABLES,
	RECORD_OPT_STACK_COPY_BUDGET,
	RECORD_OPT_COPY_BUDGET,
	RECORD_OPT_UNWIND_CACHE,
	RECORD_OPT_UNWIND_CACHE_SIZE,
	RECORD_OPT_ALL_CPUS,
	RECORD_OPT_CPU,
	RECORD_OPT_PID,
	RECORD_OPT_TID,
	RECORD_OPT_PER_THREAD,
	RECORD_OPT_NO_INHERIT,
	RECORD_OPT_CGROUP,
	RECORD_OPT_CGROUP_EXACT,
	RECORD_OPT_ALL_CGROUPS,
	RECORD_OPT_TRANSPORT,
	RECORD_OPT_MMAP_PAGES,
	RECORD_OPT_STAGING_SIZE,
	RECORD_OPT_OUTPUT,
	RECORD_OPT_FORCE,
	RECORD_OPT_OVERWRITE,
	RECORD_OPT_TRIGGER,
	RECORD_OPT_TRIGGER_RUNQLAT,
	RECORD_OPT_MAX_SNAPSHOTS,
	RECORD_OPT_SNAPSHOTS_OVERLAP,
	RECORD_OPT_METRICS,
	RECORD_OPT_KEEP_CAPS,
	RECORD_OPT_KEEP_READ_CAPS,
	RECORD_OPT_EXIT_WITH_PARENT,
	RECORD_OPT_VERBOSE,
	RECORD_OPT_QUIET,
	RECORD_OPT_DEBUG_DRAIN_DELAY,
	RECORD_OPT_DEBUG_LOCKED_CLAIMS,
	RECORD_OPT_DEBUG_FULL_STEPS,
	RECORD_OPT_DEBUG_WRITER_DELAY,
	RECORD_OPT_DEBUG_START_TABLES_DELAY,
	RECORD_OPT_DEBUG_START_DELAY,
	RECORD_OPT_OFF_CPU,
	RECORD_OPT_OFF_CPU_MIN,
	RECORD_OPT_SWITCH_OUTPUT,
	RECORD_OPT_SWITCH_MAX_FILES,
	RECORD_OPT_MAX_SIZE,
};

enum report_option_id {
	REPORT_OPT_INPUT = 1,
	REPORT_OPT_SORT,
	REPORT_OPT_CHILDREN,
	REPORT_OPT_NO_CHILDREN,
	REPORT_OPT_STDIO,
	REPORT_OPT_SHOW_NR_SAMPLES,
	REPORT_OPT_HEADER,
	REPORT_OPT_HEADER_ONLY,
	REPORT_OPT_FOLDED,
	REPORT_OPT_FLAMEGRAPH,
	REPORT_OPT_EVENT,
	REPORT_OPT_COMM,
	REPORT_OPT_PID,
	REPORT_OPT_TID,
	REPORT_OPT_CPU,
	REPORT_OPT_CGROUP,
	REPORT_OPT_TIME,
	REPORT_OPT_KALLSYMS,
	REPORT_OPT_KALLSYMS_CACHE,
	REPORT_OPT_SYMFS,
	REPORT_OPT_PPROF,
	REPORT_OPT_TITLE,
	REPORT_OPT_WIDTH,
	REPORT_OPT_INVERTED,
	REPORT_OPT_DIFF,
	REPORT_OPT_UNWIND_CHECK,
	REPORT_OPT_PERCENT_LIMIT,
	REPORT_OPT_CALL_GRAPH,
};

enum script_option_id {
	SCRIPT_OPT_INPUT = 1,
	SCRIPT_OPT_KALLSYMS,
	SCRIPT_OPT_KALLSYMS_CACHE,
	SCRIPT_OPT_SYMFS,
	SCRIPT_OPT_FIELDS,
	SCRIPT_OPT_NS,
	SCRIPT_OPT_HIDE_CALL_GRAPH,
	SCRIPT_OPT_SHOW_LOST_EVENTS,
	SCRIPT_OPT_SHOW_LOST_SAMPLES,
	SCRIPT_OPT_COMM,
	SCRIPT_OPT_PID,
	SCRIPT_OPT_TID,
	SCRIPT_OPT_CPU,
	SCRIPT_OPT_TIME,
};

enum export_option_id {
	EXPORT_OPT_LISTEN = 1,
	EXPORT_OPT_TEXTFILE,
	EXPORT_OPT_INTERVAL,
	EXPORT_OPT_EVENT,
	EXPORT_OPT_FREQ,
	EXPORT_OPT_CGROUP,
	EXPORT_OPT_TOP,
	EXPORT_OPT_WEB_CONFIG,
	EXPORT_OPT_CGROUP_GRACE,
	EXPORT_OPT_PROFILES,
	EXPORT_OPT_UNWIND_MEM,
	EXPORT_OPT_UNWIND_CACHE_SIZE,
	EXPORT_OPT_CONTAINERD_SOCKET,
	EXPORT_OPT_CRIO_SOCKET,
	EXPORT_OPT_DOCKER_SOCKET,
	EXPORT_OPT_OFF_CPU,
	EXPORT_OPT_OFF_CPU_MIN,
};

enum snapshot_option_id {
	SNAPSHOT_OPT_WAIT = 1,
};

enum trace_option_id {
	TRACE_OPT_SUMMARY = 1,
	TRACE_OPT_ALL_CPUS,
	TRACE_OPT_PID,
	TRACE_OPT_HISTOGRAM,
	TRACE_OPT_METRICS,
};

extern const struct options_command record_command;
extern const struct options_command report_command;
extern const struct options_command script_command;
extern const struct options_command export_command;
extern const struct options_command snapshot_command;

extern const struct options_command merge_command;
extern const struct options_command list_command;
extern const struct options_command trace_command;

/* Parses -F HZ for record and export: 1 to 1000000, and no more than the
 * kernel allows now (kernel.perf_event_max_sample_rate, which the kernel
 * lowers when samples take long); -EINVAL after one line naming the limit if
 * not. */
int parse_sample_freq(const char *text, uint64_t *freq);

/* Every command above, for the tests. */
extern const struct options_command *const all_commands[];
extern const unsigned int nr_all_commands;

#endif
