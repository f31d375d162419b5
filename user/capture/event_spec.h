/* SPDX-License-Identifier: GPL-2.0-only */
/* event_spec.h: perf's event names as "-e" takes them: software and hardware
 * events (with :u/:k modifiers) and tracepoints as subsystem:name. */
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
};

struct event_desc {
	char name[160];      /* as perf prints it: "cpu-clock", "cpu-clock:u", "sched:sched_switch" */
	enum event_kind kind;
	uint32_t type;       /* PERF_TYPE_* */
	uint64_t config;
	bool exclude_user;
	bool exclude_kernel;
	char system[64];     /* tracepoints */
	char tracepoint[96];
	struct tracepoint_format format; /* tracepoints, once resolved */
};

#define EVENT_SPEC_MAX 32

/* Appends the events of one "-e" argument ("a,b,c") to list. 0, or -1 with
 * err naming the offending event and what is accepted. */
int event_spec_parse(const char *spec, struct event_desc *list, unsigned int *nr, char *err,
		     size_t errlen);

/* Makes sure the event can be opened here: reads a tracepoint's format (mounting
 * tracefs if needed), tries a hardware event once. 0, or -1 with err set. */
int event_resolve(struct event_desc *ev, char *err, size_t errlen);

/* Prints the events "-e" accepts, as perf list does: all of them (none
 * given), or for each pattern in turn as perf list PATTERN filters: "hw",
 * "sw", "tracepoint", SYSTEM:NAME globs ("sched:*"), or any other word as a
 * glob an event's name contains ("*WORD*"). Tracepoints sorted as perf
 * sorts them. 0, or -1 if memory ran out. */
int event_list_print(FILE *out, char *const *patterns, int nr_patterns);

#endif
