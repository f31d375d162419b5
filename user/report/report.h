/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h: reads a recording in time order, resolves each sample's symbols,
 * and prints, per event, the rows of the chosen sort keys by overhead (self,
 * or with children), or the folded stacks, or an SVG flame graph. */
#ifndef RINGTRACE_REPORT_H
#define RINGTRACE_REPORT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/container_names.h"

enum report_key {
	REPORT_KEY_COMM,
	REPORT_KEY_PID,
	REPORT_KEY_TID,
	REPORT_KEY_DSO,
	REPORT_KEY_SYM,
	REPORT_KEY_CPU,
	REPORT_KEY_CGROUP,
};

#define REPORT_MAX_KEYS 8

enum report_output {
	REPORT_TABLE,      /* rows by overhead, per event */
	REPORT_FOLDED,     /* one line per unique stack and its count */
	REPORT_FLAMEGRAPH, /* an interactive SVG flame graph */
	REPORT_PPROF,      /* a gzipped pprof profile.proto */
};

/* The order of a call graph's functions (report -g). */
enum report_graph_order {
	REPORT_GRAPH_ORDER_DEFAULT, /* callee, caller with --children (perf's) */
	REPORT_GRAPH_CALLER,        /* callers first: from the root down to the row */
	REPORT_GRAPH_CALLEE,        /* callees first: from the row up to the root */
};

/* What -g (perf report -g graph,THRESHOLD,LIMIT,ORDER) prints. */
struct report_graph_options {
	bool shown;                 /* each row's call graph under it */
	enum report_graph_order order;
	double threshold;           /* percent of the event's period under which a
				     * branch is left out */
	unsigned int print_limit;   /* the most branches of a level, 0: all */
};

/* perf report's threshold of call graphs, in percent. */
#define REPORT_GRAPH_DEFAULT_THRESHOLD 0.5
/* The rows of each event a table on a terminal shows (report without
 * --stdio): perf's TUI shows a screen; the rest is one line away. */
#define REPORT_TERMINAL_ROWS 100

struct report_options {
	const char *input;      /* its name, for messages */
	const char *const *inputs; /* the outputs read as one (oldest first), or NULL: input */
	unsigned int nr_inputs;
	enum report_key keys[REPORT_MAX_KEYS];
	unsigned int nr_keys;
	enum report_output output;
	const char *flamegraph_path; /* REPORT_FLAMEGRAPH: the SVG file to create ("-": out) */
	const char *title;       /* the flame graph's, or NULL: "ringtrace: INPUT" */
	unsigned int width;      /* the flame graph's in pixels, or 0: the default */
	double percent_limit;    /* the table's rows under this percent left out */
	bool no_pager;           /* --stdio: the table straight to stdout, even a terminal */
	bool header;             /* the recording's header first, as perf report --header */
	bool header_only;        /* ...and nothing else (--header-only) */
	bool inverted;           /* an icicle graph: roots at the top */
	const char *pprof_path;  /* REPORT_PPROF: the profile to create ("-": out) */
	const char *diff_before; /* --diff: the recording or folded file input is compared with */
	bool unwind_check;       /* --unwind-check: the kernel's user frames against libdw's */
	bool children;           /* also credit every caller on the stack */
	struct report_graph_options graph; /* -g */
	bool sort_by_sym_first;  /* --sort given, sym its first key (perf's call graphs
				  * then leave a lone chain's first function out) */
	unsigned int max_rows;   /* the most rows of each event's table, 0: all */
	const char *event_filter; /* only this event (folded stacks and flame graphs
				   * take the first one without it), or NULL */
	/* only samples of these comms, processes, threads (comma-separated
	 * lists, as script's --comm, --pid, --tid), or NULL */
	const char *comm_filter, *pid_list, *tid_list;
	int64_t pid_filter;      /* only samples of this pid (too), or -1 */
	const char *cpu_filter;  /* only samples of these CPUs ("0,2-3"), or NULL */
	const char *cgroup_filter; /* only samples of this cgroup path, or NULL */
	const char *container_filter; /* only samples of the container with this id (or
				       * its first 12 or more hex digits), or NULL */
	/* only samples of containers whose runtime names this Kubernetes
	 * namespace, pod, container (its names: sys/container_names.h), or NULL */
	const char *namespace_filter, *pod_filter, *container_name_filter;
	/* where containers' names are asked (the filters above, and pprof's
	 * labels), or NULL: none; the questions take names_budget_ns at most in
	 * all, answered from the cache after */
	struct container_names *names;
	uint64_t names_budget_ns;
	bool time_filter;        /* only samples in [time_start, time_end] (ns) */
	uint64_t time_start, time_end;
	const char *kallsyms;    /* kernel symbols, normally /proc/kallsyms */
	const char *kallsyms_cache; /* --kallsyms-cache (cli's), or NULL: its default */
	const char *symfs;       /* binaries are looked for under this directory, or NULL: / */
	int64_t pprof_time_nanos;     /* REPORT_PPROF: when the profile began (ns since the
				       * epoch) and how long it lasted, or 0: the recording's */
	int64_t pprof_duration_nanos;
};

/* Parses perf's "START,END" (seconds as perf script prints them, either one
 * may be empty) into o. 0, or -EINVAL with err set. */
int report_parse_time(struct report_options *o, const char *text, char *err, size_t errlen);

/* Parses "comm,dso,sym" into o->keys (comm, pid, tid, dso, sym, cpu, cgroup).
 * 0, or -EINVAL with err naming the bad key. */
int report_parse_sort(struct report_options *o, const char *text, char *err, size_t errlen);

/* Parses -g's value as perf report's, "graph,0.5,caller,function,percent" when
 * text is NULL (a comma-separated list, each word a prefix: none; graph; caller
 * or callee; function; percent; a threshold, then a limit) into o->graph. 0, or
 * -EINVAL with err naming the word and what to use (print types, keys and
 * values other than perf's defaults are not supported). */
int report_parse_call_graph(struct report_options *o, const char *text, char *err,
			    size_t errlen);

/* report_run's answer to a request the recording cannot serve (a filter or
 * key it has no data for, a malformed --cpu): a usage error. An errno no call
 * of report's returns, so that it is told from the failures. */
#define REPORT_BAD_REQUEST (-ENODATA)

/* Prints the report to out. 0, or -errno with err set (unreadable or malformed
 * input: the file and offset are named), or REPORT_BAD_REQUEST. */
int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen);
struct sample_filter;
/* o's filters (comm, pid, tid and CPU lists, a pid, the time) into f
 * (sample_filter_free after): 0, or -EINVAL with err naming the bad list. */
int report_filter_init(struct sample_filter *f, const struct report_options *o, char *err,
		       size_t errlen);
/* The same into memory: *data (malloc'd, *len bytes, NULL-terminated; the
 * caller frees it, whatever is returned), for a caller that goes on with the
 * report's text or bytes. */
int report_run_to_memory(const struct report_options *o, char **data, size_t *len, char *err,
			 size_t errlen);

#endif
