/* SPDX-License-Identifier: GPL-2.0-only */
/* script.h: "ringtrace script": every sample of a recording, one per line in
 * time order across CPUs, printed line for line as perf 6.1's perf script. */
#ifndef RINGTRACE_SCRIPT_H
#define RINGTRACE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/sample_filter.h"
#include "report/script_fields.h"

struct script_options {
	const char *input;      /* its name, for messages */
	const char *const *inputs; /* the outputs read as one (oldest first), or NULL: input */
	unsigned int nr_inputs;
	const char *kallsyms; /* kernel symbols, normally /proc/kallsyms */
	const char *kallsyms_cache; /* --kallsyms-cache (cli's), or NULL: its default */
	const char *symfs;    /* binaries are looked for under this directory, or NULL: / */
	struct script_fields fields; /* with fields_set (-F); else perf's defaults */
	bool fields_set;
	bool nanosecs;          /* --ns: times to the nanosecond */
	bool no_callchain;      /* -G, --hide-call-graph */
	bool show_lost_events;  /* PERF_RECORD_LOST records, as perf script prints them */
	bool show_lost_samples; /* PERF_RECORD_LOST_SAMPLES records, printed alike */
	struct sample_filter_options filter; /* which samples (lost records: all) */
};

/* 0, or -errno with err set (unreadable or malformed input: file and offset;
 * a bad filter: -EINVAL). */
int script_run(const struct script_options *o, FILE *out, char *err, size_t errlen);

#endif
