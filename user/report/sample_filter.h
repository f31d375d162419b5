/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_filter.h: which samples a reader of a recording keeps, as perf
 * script filters them: by comm, pid and tid (each a comma-separated list),
 * by CPU list and by time window. */
#ifndef RINGTRACE_SAMPLE_FILTER_H
#define RINGTRACE_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "sys/cpu_list.h"

/* The filters as given (NULL: none). */
struct sample_filter_options {
	const char *comms; /* --comm "bash,sshd" */
	const char *pids;  /* --pid "1,42" */
	const char *tids;  /* --tid "42" */
	const char *cpus;  /* --cpu "0,2-3" */
	const char *time;  /* --time "START,END", seconds as perf script prints them */
};

/* At most this many comms, pids or tids in one list. */
#define SAMPLE_FILTER_MAX_IDS 256

/* Filled by sample_filter_init from text, or field by field by a reader
 * whose values are parsed already (report's); sample_filter_free either way. */
struct sample_filter {
	const char *comms[SAMPLE_FILTER_MAX_IDS];
	unsigned int nr_comms;
	char *comm_copy;
	int64_t pids[SAMPLE_FILTER_MAX_IDS], tids[SAMPLE_FILTER_MAX_IDS];
	unsigned int nr_pids, nr_tids;
	bool by_cpu, by_time;
	struct cpu_list cpus;
	uint64_t time_start, time_end; /* ns, both kept */
};

/* Parses perf's "START,END" (seconds, either may be empty) into
 * [*start, *end] in ns. 0, or -EINVAL with err set. */
int sample_filter_parse_time(const char *text, uint64_t *start, uint64_t *end, char *err,
			     size_t errlen);
/* Checks and compiles o's filters into f (cpus below max_cpus). 0, or
 * -EINVAL (err names the bad value and the fix) or -ENOMEM. */
int sample_filter_init(struct sample_filter *f, const struct sample_filter_options *o,
		       int max_cpus, char *err, size_t errlen);
/* Whether the sample s, of a thread named comm, passes every filter. */
bool sample_filter_keeps(const struct sample_filter *f, const struct perf_sample *s,
			 const char *comm);
void sample_filter_free(struct sample_filter *f);

#endif
