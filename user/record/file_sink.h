/* SPDX-License-Identifier: GPL-2.0-only */
/* file_sink.h: the per-CPU files of a recording: a staging ring per CPU that
 * the drain thread fills and a writer thread empties into DIR/data.cpuN, so a
 * slow disk never stalls the drain; what it drops is counted and written as LOST. */
#ifndef RINGTRACE_FILE_SINK_H
#define RINGTRACE_FILE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "capture/record_sink.h"
#include "sys/cpu_list.h"

struct file_sink_config {
	const struct cpu_list *cpus; /* a file and a staging ring each */
	int dirfd;                   /* DIR, created by the caller */
	const char *dirpath;
	size_t staging_bytes;        /* per CPU, a power of two */
	uint64_t sample_lost_id;     /* event id of the LOST_SAMPLES it writes */
	uint64_t sideband_lost_id;   /* event id of the LOST it writes for side-band */
	unsigned int writer_delay_ms; /* test knob: a slow disk */
};

/* Creates DIR/data.cpuN for every CPU (0600, exclusively) and the staging
 * rings; the writer thread starts with ops->start. NULL with err set. */
struct record_sink *file_sink_create(const struct file_sink_config *cfg, char *err,
				     size_t errlen);

#endif
