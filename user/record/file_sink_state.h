/* SPDX-License-Identifier: GPL-2.0-only */
/* file_sink_state.h: what the per-CPU files' parts share: the sink's state and
 * one CPU's; the sink (file_sink.c) and its switches (file_sink_switch.c). */
#ifndef RINGTRACE_FILE_SINK_STATE_H
#define RINGTRACE_FILE_SINK_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/staging_ring.h"
#include "format/perf_data_writer.h"
#include "record/file_sink.h"
#include "record/sideband_history.h"
#include "sys/handoff_wake.h"

#define STREAM_BUFFER_BYTES (256 * 1024)
#define IDLE_WAIT_MS 50

struct file_sink;

/* One CPU: its staging ring (filled by the drain thread) and its file. */
struct cpu_output {
	int cpu;
	struct staging_ring staging;
	struct perf_data_stream stream;
	/* writer thread: records reach the file when the stream's buffer is
	 * written; until then they are buffered, and if that write fails
	 * (a full disk) they never do */
	uint64_t samples_written;          /* SAMPLE records in the file */
	uint64_t samples_buffered;         /* ...appended, not yet written */
	uint64_t items_buffered[STAGING_CLASSES];  /* records or LOST counts appended */
	uint64_t items_unwritten[STAGING_CLASSES]; /* ...that never reached the file */
	uint64_t items_written[STAGING_CLASSES];   /* ...that did */
	uint64_t samples_unwritten;        /* SAMPLE records among them */
	uint64_t last_time;                /* of the newest record taken */
	uint64_t span_first, span_last;    /* earliest and latest sample times appended */
	unsigned int lost_records_rescued; /* LOST records written after a failure */
	/* drain thread: records dropped because the staging ring was full */
	uint64_t dropped_samples;
	uint64_t dropped_sideband;
	struct file_sink *owner;
	/* rotation: the staging ring's head at the switch (drain thread,
	 * published by switch_pending), and the counts when this output began */
	uint64_t switch_at;
	struct file_sink_output_cpu base;
	uint64_t bytes_before;             /* written into the outputs before */
};

struct file_sink {
	struct record_sink base;
	struct cpu_output *cpus;
	unsigned int nr;
	int *slot_of_cpu;   /* by CPU number, -1 if it has no file */
	int nr_slots;
	const char *dirpath;
	uint64_t sample_lost_id, sideband_lost_id;
	unsigned int delay_ms;
	pthread_t thread;
	bool running;
	struct handoff_wake wake; /* the drain thread's wakeup of the writer */
	atomic_bool stop;
	atomic_int error;     /* errno of the first failed write, 0 if none */
	int error_cpu;
	/* --switch-output */
	const struct file_sink_rotation *rotation;
	struct sideband_history history;
	atomic_bool switch_pending;  /* set by the drain thread, cleared by the writer */
	uint64_t staged_bytes;       /* drain thread: for the current output */
	struct file_sink_output_cpu *counts; /* writer: an output's, at its end */
	char switch_error[512];      /* a switch that failed (error set too) */
	bool rotation_done;          /* the last output was handed over */
};

/* The first failed write's errno (EIO for none) and CPU. */
void file_sink_set_error(struct file_sink *f, int cpu, int err);
/* Moves o's waiting records into its file (while a switch is pending, only
 * those staged before it); true if there were any. */
bool file_sink_empty_one(struct file_sink *f, struct cpu_output *o);
/* What o's stream holds reaches its file, counted as written (or not). */
void file_sink_flush_one(struct file_sink *f, struct cpu_output *o);
/* DIR/data.cpuN of an output (dirfd) and o's stream on it; 0 or -errno
 * with err set. In file_sink_switch.c. */
int file_sink_open_stream(struct file_sink *f, struct cpu_output *o, int dirfd, char *err,
			  size_t errlen);
/* The writer (or file_finish, at_exit): the switch the drain thread asked
 * for, once every CPU's records before it are written. In file_sink_switch.c. */
void file_sink_switch_now(struct file_sink *f, bool at_exit);

#endif
