/* SPDX-License-Identifier: GPL-2.0-only */
/* file_sink.h: the per-CPU files of a recording: a staging ring per CPU that
 * the drain thread fills and a writer thread empties into DIR/data.cpuN, so a
 * slow disk never stalls the drain; what it drops is counted and written as LOST. */
#ifndef RINGTRACE_FILE_SINK_H
#define RINGTRACE_FILE_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/record_sink.h"
#include "sys/cpu_list.h"

/* What one CPU's file of an output held when it was closed. */
struct file_sink_output_cpu {
	int cpu;
	uint64_t samples;   /* SAMPLE records in it */
	uint64_t lost;      /* samples its LOST_SAMPLES records count */
	uint64_t unwritten; /* samples that never reached it (a failed write) */
	uint64_t bytes;
};

/* --switch-output: the outputs after the first. */
struct file_sink_rotation {
	/* The writer thread at a switch, or file_finish's caller at the end
	 * (at_exit): the output's files are closed, cpus their counts. It
	 * finishes and names that output and, unless at_exit, makes the next
	 * one and returns its directory's fd (kept by the callee), or -errno
	 * with err set. */
	int (*switch_output)(void *ctx, const struct file_sink_output_cpu *cpus, unsigned int nr,
			     bool at_exit, char *err, size_t errlen);
	void *ctx;
};

struct file_sink_config {
	const struct cpu_list *cpus; /* a file and a staging ring each */
	int dirfd;                   /* DIR, created by the caller */
	const char *dirpath;
	size_t staging_bytes;        /* per CPU, a power of two */
	uint64_t sample_lost_id;     /* event id of the LOST_SAMPLES it writes */
	uint64_t sideband_lost_id;   /* event id of the LOST it writes for side-band */
	unsigned int writer_delay_ms; /* test knob: a slow disk */
	const struct file_sink_rotation *rotation; /* NULL: one output */
};

/* Creates DIR/data.cpuN for every CPU (0600, exclusively) and the staging
 * rings; the writer thread starts with ops->start. NULL with err set. */
struct record_sink *file_sink_create(const struct file_sink_config *cfg, char *err,
				     size_t errlen);

/* Drain thread, with a rotation: the records staged so far go to the
 * current output, those staged after to the next one, which the writer
 * makes once it has written the former (the drain goes on meanwhile). 0, or
 * -EBUSY while the previous switch is under way. */
int file_sink_switch(struct record_sink *s);
/* Drain thread: the bytes staged for the current output's files. */
uint64_t file_sink_output_bytes(const struct record_sink *s);

#endif
