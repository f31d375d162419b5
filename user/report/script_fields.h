/* SPDX-License-Identifier: GPL-2.0-only */
/* script_fields.h: which fields script prints for each kind of event: perf
 * script's defaults, and its -F syntax to choose them. */
#ifndef RINGTRACE_SCRIPT_FIELDS_H
#define RINGTRACE_SCRIPT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_data_reader.h"

enum script_field {
	SCRIPT_FIELD_COMM = 1u << 0,
	SCRIPT_FIELD_TID = 1u << 1,
	SCRIPT_FIELD_PID = 1u << 2,
	SCRIPT_FIELD_TIME = 1u << 3,
	SCRIPT_FIELD_CPU = 1u << 4,
	SCRIPT_FIELD_EVENT = 1u << 5,
	SCRIPT_FIELD_TRACE = 1u << 6,
	SCRIPT_FIELD_IP = 1u << 7,
	SCRIPT_FIELD_SYM = 1u << 8,
	SCRIPT_FIELD_DSO = 1u << 9,
	SCRIPT_FIELD_SYMOFF = 1u << 11,
	SCRIPT_FIELD_PERIOD = 1u << 13,
};

/* The kinds of event perf gives fields of their own ("sw", "trace"); every
 * sampling event that is not a tracepoint takes the "sw" ones here, as
 * software, hardware and cache events have the same defaults in perf. */
enum script_kind { SCRIPT_KIND_SAMPLE, SCRIPT_KIND_TRACEPOINT, SCRIPT_KINDS };

struct script_fields {
	uint32_t fields[SCRIPT_KINDS];
	bool user_set[SCRIPT_KINDS]; /* -F named this kind's fields (else defaults) */
	/* -F replaced them (a list with no +FIELD or -FIELD): the defaults'
	 * bpf-output field (a BPF-output event's raw data) is gone with them */
	bool replaced[SCRIPT_KINDS];
};

/* perf script's default fields. */
void script_fields_default(struct script_fields *f);
/* Applies one -F argument, in perf's syntax: [TYPE:]FIELD,... replaces the
 * fields (of all kinds, or of TYPE: sw, hw, trace), +FIELD,... adds and
 * -FIELD,... removes. 0, or -EINVAL with err set (a usage error). */
int script_fields_parse(struct script_fields *f, const char *arg, char *err, size_t errlen);

/* perf's checks of a choice: sym and dso need ip, symoff needs sym. 0, or -EINVAL
 * with err set (a usage error). */
int script_fields_check(const struct script_fields *f, char *err, size_t errlen);

/* perf_session__check_output_opt, for the events of in: fields an event kind
 * cannot have are dropped from the defaults, or an error if -F asked for
 * them (-EINVAL, err set); callchains are printed if any event has them (and not
 * no_callchain), and then tracepoints print their ip too. *name_width: the
 * longest event name, as perf aligns them. */
int script_fields_fit(struct script_fields *f, const struct perf_input *in, bool no_callchain,
		      bool *use_callchain, int *name_width, char *err, size_t errlen);

/* The kind of fields ev's samples print. */
static inline enum script_kind script_kind_of(const struct perf_input_event *ev)
{
	return ev->attr.type == PERF_TYPE_TRACEPOINT ? SCRIPT_KIND_TRACEPOINT : SCRIPT_KIND_SAMPLE;
}

static inline bool script_has_callchain(const struct perf_input_event *ev)
{
	return ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN;
}

/* ev's name as script prints it. */
static inline const char *script_event_name(const struct perf_input_event *ev)
{
	return ev->name ? ev->name : "[unknown]";
}

#endif
