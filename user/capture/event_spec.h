/* SPDX-License-Identifier: GPL-2.0-only */
/* event_spec.h: the event names "-e" takes: perf's software and hardware events
 * (with :u/:k modifiers), tracepoints as subsystem:name, bpftrace's user probes. */
#ifndef RINGTRACE_EVENT_SPEC_H
#define RINGTRACE_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sys/tracefs.h"

enum event_kind {
	EVENT_SOFTWARE,
	EVENT_HARDWARE,
	EVENT_TRACEPOINT,
	EVENT_UPROBE,    /* uprobe:BINARY:FUNC[+OFFSET] */
	EVENT_URETPROBE, /* uretprobe:BINARY:FUNC */
	EVENT_USDT,      /* usdt:BINARY:PROVIDER:NAME */
	EVENT_OFFCPU,    /* record --off-cpu: time off CPU, from sched_switch */
};

/* The off-CPU event's name, as perf record --off-cpu names it. */
#define EVENT_OFFCPU_NAME "offcpu-time"

/* A user-space probe as -e names it (bpftrace's syntax); path, the argument
 * count and signedness are filled when it is resolved (record/probe_resolve.c). */
struct user_probe {
	char binary[256];   /* as given: a path, a program in PATH, a library name */
	char path[256];     /* the ELF file it names */
	char fd_path[32];   /* "/proc/self/fd/N": that file as opened when it was
			       found, which is read and attached by (never the
			       path again, which its owner may have swapped) */
	char func[128];     /* uprobes: the function */
	uint64_t offset;    /* uprobes: +OFFSET bytes into it */
	uint64_t func_offset; /* uprobes: where the function is in the file, once
				 found (0: libbpf finds it by name) */
	char provider[64];  /* USDT: the probe's provider and name */
	char probe[64];
	unsigned int nr_args; /* argument words recorded */
	uint16_t arg_signed;  /* bit i: argument i+1 is signed */
};

/* The probe's file as it was opened when found, else its path. */
static inline const char *user_probe_file(const struct user_probe *p)
{
	return p->fd_path[0] ? p->fd_path : p->path;
}

struct rt_filter;

struct event_desc {
	char name[160];      /* as perf prints it: "cpu-clock", "cpu-clock:u", "sched:sched_switch" */
	unsigned int item;   /* which -e added it (its names, its globs' tracepoints) */
	const char *filter_expr;  /* --filter after it, as given... */
	struct rt_filter *filter; /* ...and compiled (trace_filter.h); malloc'd */
	enum event_kind kind;
	uint32_t type;       /* PERF_TYPE_* */
	uint64_t config;
	bool exclude_user;
	bool exclude_kernel;
	char system[64];     /* tracepoints */
	char tracepoint[96];
	struct tracepoint_format format; /* tracepoints, once resolved (probes: the id
					    and size of their record in the recording) */
	struct user_probe probe;         /* EVENT_UPROBE, EVENT_URETPROBE, EVENT_USDT */
};

/* True for the user-space probes. */
bool event_is_user_probe(const struct event_desc *ev);

/* Most events in one recording: an event's number is the low byte of its
 * samples' ids (RECORDING_MAX_EVENTS, 255; the off-CPU event among them).
 * Each costs one perf event per CPU (a tracepoint: one in all) and its
 * format in the header; a glob larger than this ("syscalls:*" is 720) is
 * refused naming its count. */
#define EVENT_SPEC_MAX 254

/* Appends the events of one "-e" argument ("a,b,c") to list (room for
 * EVENT_SPEC_MAX): a tracepoint glob ("ext4:*", "sched:sched_wak*") as the
 * tracepoints of tracefs it matches, by system then name, as perf adds
 * them. 0, or -errno (-EINVAL mostly) with err naming the offending event and
 * what is accepted. */
int event_spec_parse(const char *spec, struct event_desc *list, unsigned int *nr, char *err,
		     size_t errlen);

/* Appends the off-CPU event (record --off-cpu). 0, or -E2BIG with err set. */
int event_offcpu_append(struct event_desc *list, unsigned int *nr, char *err, size_t errlen);

/* Makes sure the event can be opened here: reads a tracepoint's format (mounting
 * tracefs if needed), tries a hardware event once (user probes are resolved
 * by record/probe_resolve.c). 0, or -errno with err set. */
int event_resolve(struct event_desc *ev, char *err, size_t errlen);

/* Prints the events "-e" accepts, as perf list does: all of them (none
 * given), or for each pattern in turn as perf list PATTERN filters: "hw",
 * "sw", "tracepoint", SYSTEM:NAME globs ("sched:*"), or any other word as a
 * glob an event's name contains ("*WORD*"). Tracepoints sorted as perf
 * sorts them. 0, or -ENOMEM if memory ran out. */
int event_list_print(FILE *out, char *const *patterns, int nr_patterns);

#endif
