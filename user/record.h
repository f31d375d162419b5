/* record.h: a recording session: opens the events and files, drains the BPF
 * rings and side-band into per-CPU files until stopped, then prints totals. */
#ifndef RINGTRACE_RECORD_H
#define RINGTRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_events.h"

struct record_options {
	bool system_wide;
	struct sample_rate rate;
	bool callchain;
	const char *output;
	bool force;
	size_t ring_pages;      /* per-CPU BPF ring, in pages (a power of two) */
	size_t sideband_pages;  /* per-CPU side-band perf ring, in pages */
	char **workload_argv;   /* NULL-terminated command after "--", or NULL */
	int argc;               /* the whole command line, for the header */
	char **argv;
	bool verbose;
};

/* Runs the recording. Returns the process exit status: 0, the workload's exit
 * status when one ran, or 1 after printing one error line. */
int record_run(const struct record_options *opts);

#endif
