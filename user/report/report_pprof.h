/* SPDX-License-Identifier: GPL-2.0-only */
/* report_pprof.h: report --pprof: each sample of a recording with its frames'
 * mappings and its labels into a pprof profile, written gzipped to a file. */
#ifndef RINGTRACE_REPORT_PPROF_H
#define RINGTRACE_REPORT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "format/perf_record.h"
#include "report/pprof.h"
#include "report/recording.h"

struct report_pprof {
	struct pprof_builder profile;
	struct pprof_frame *frames; /* the sample being added */
	size_t nr_frames;
	bool cgroups; /* the recording has cgroup ids: a label */
};

/* 0, or -ENOMEM if memory ran out. */
int report_pprof_init(struct report_pprof *rp, const struct recording *rec,
		      struct container_names *names, uint64_t *names_budget_ns);
void report_pprof_free(struct report_pprof *rp);
/* Adds a sample (that passed the filters) of comm. 0, or -ENOMEM. */
int report_pprof_add(struct report_pprof *rp, struct recording *rec, const struct perf_sample *s,
		     const char *comm, uint64_t period);
/* Writes the profile of event ev to path ("-": out), of the time and duration
 * given (ns), or with duration_nanos 0 of the recording's. 0, or -errno with
 * err set. */
int report_pprof_write(struct report_pprof *rp, const struct recording *rec,
		       const struct perf_input_event *ev, int64_t time_nanos, int64_t duration_nanos,
		       const char *path, FILE *out, char *err, size_t errlen);

#endif
