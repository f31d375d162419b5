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

struct report_options {
	const char *input;
	enum report_key keys[REPORT_MAX_KEYS];
	unsigned int nr_keys;
	enum report_output output;
	const char *flamegraph_path; /* REPORT_FLAMEGRAPH: the SVG file to create ("-": out) */
	const char *title;       /* the flame graph's, or NULL: "ringtrace: INPUT" */
	unsigned int width;      /* the flame graph's in pixels, or 0: the default */
	double percent_limit;    /* the table's rows under this percent left out */
	bool no_pager;           /* --stdio: the table straight to stdout, even a terminal */
	bool inverted;           /* an icicle graph: roots at the top */
	const char *pprof_path;  /* REPORT_PPROF: the profile to create ("-": out) */
	const char *diff_before; /* --diff: the recording or folded file input is compared with */
	bool unwind_check;       /* --unwind-check: the kernel's user frames against libdw's */
	bool children;           /* also credit every caller on the stack */
	const char *event_filter; /* only this event (folded stacks and flame graphs
				   * take the first one without it), or NULL */
	const char *comm_filter; /* only samples of this comm, or NULL */
	int64_t pid_filter;      /* only samples of this pid, or -1 */
	const char *cpu_filter;  /* only samples of these CPUs ("0,2-3"), or NULL */
	const char *cgroup_filter; /* only samples of this cgroup path, or NULL */
	bool time_filter;        /* only samples in [time_start, time_end] (ns) */
	uint64_t time_start, time_end;
	const char *kallsyms;    /* kernel symbols, normally /proc/kallsyms */
	const char *symfs;       /* binaries are looked for under this directory, or NULL: / */
};

/* Parses perf's "START,END" (seconds as perf script prints them, either one
 * may be empty) into o. 0, or -EINVAL with err set. */
int report_parse_time(struct report_options *o, const char *text, char *err, size_t errlen);

/* Parses "comm,dso,sym" into o->keys (comm, pid, tid, dso, sym, cpu, cgroup).
 * 0, or -EINVAL with err naming the bad key. */
int report_parse_sort(struct report_options *o, const char *text, char *err, size_t errlen);

/* report_run's answer to a request the recording cannot serve (a filter or
 * key it has no data for, a malformed --cpu): a usage error. An errno no call
 * of report's returns, so that it is told from the failures. */
#define REPORT_BAD_REQUEST (-ENODATA)

/* Prints the report to out. 0, or -errno with err set (unreadable or malformed
 * input: the file and offset are named), or REPORT_BAD_REQUEST. */
int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen);

#endif
