/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_procs.h: the HotSpot JVMs of a -g recording: recognized from their
 * libjvm.so mappings, their layout read from their memory, told to the BPF walk,
 * the methods it wrote named into DIR/perf-PID.map. */
#ifndef RINGTRACE_HOTSPOT_PROCS_H
#define RINGTRACE_HOTSPOT_PROCS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/hotspot_loader.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "record/runtime_procs.h"
#include "symbols/hotspot_walk_layout.h"
#include "sys/file_copies.h"

/* JVMs started during the recording whose layout is still to be read, at
 * most (more are counted, not read), and how long each is tried for (a JVM
 * sets its layout up as it starts, after it maps libjvm.so). */
#define HOTSPOT_PENDING_MAX 64
#define HOTSPOT_PENDING_MS 30000
/* How long a JVM read as of a version not known is tried again (one that
 * has just mapped libjvm.so may have its data not in place yet). */
#define HOTSPOT_SETTLE_MS 2000
/* How often the reader tries the JVMs pending. */
#define HOTSPOT_READER_PERIOD_MS 100

struct hotspot_file;

/* A JVM whose layout the reader's thread reads. */
struct hotspot_pending {
	uint32_t pid;
	uint64_t bias;                  /* its libjvm.so's load bias */
	const struct hotspot_file *file; /* its libjvm.so (h->base.files': kept until freed) */
	uint64_t since_ms;              /* queued at (monotonic) */
};

/* Methods named per JVM, and bytes of its map's lines, at most (more are
 * counted, not named). */
#define HOTSPOT_NAMES_PER_PROCESS 65536
#define HOTSPOT_MAP_BYTES (16u << 20)

struct hotspot_procs {
	/* its lock held by the drain thread to note and name, and by a flight
	 * recorder's snapshot thread to write the maps into a snapshot;
	 * files: struct file_key -> struct hotspot_file, procs: pid -> struct
	 * hotspot_proc */
	struct runtime_procs base;
	pthread_mutex_t error_lock; /* last_error's, written on either thread */
	struct hotspot_maps maps;
	/* the layouts of the JVMs' builds: hotspot_offsets entries */
	struct hotspot_walk_layout layouts[RT_JAVA_MAX_OFFSETS];
	uint32_t nr_layouts;
	/* the reader's thread (hotspot_reader.c) and the JVMs it has to read */
	struct runtime_worker reader;
	bool reader_failed;         /* it could not set its capabilities: ended */
	struct hotspot_pending pending[HOTSPOT_PENDING_MAX];
	uint32_t nr_pending;
	/* totals */
	uint64_t processes;        /* JVMs unwound */
	uint64_t unknown_version;  /* JVMs of a version whose frames are not known */
	uint64_t not_read;         /* JVMs whose layout could not be read */
	uint64_t not_told;         /* ...or the BPF map full, or no entry left for its layout */
	uint64_t read_late;        /* of the unwound, started during the recording */
	uint64_t given_up;         /* ...of those, not read within HOTSPOT_PENDING_MS (in not_read) */
	uint64_t named, name_failed, names_dropped;
	char last_error[256];      /* why the last JVM was not read */
};

/* Off unless on (-g); dirfd (the caller's) is where the maps go: through
 * copies as each JVM exits, or (copies NULL: a flight recording) by
 * hotspot_procs_write_maps. */
void hotspot_procs_init(struct hotspot_procs *h, int dirfd, struct file_copies *copies, bool on);
/* Once the sampler is loaded: its maps given the layouts and the JVMs
 * noted so far (those the start's side-band names). */
void hotspot_procs_attach(struct hotspot_procs *h, const struct bpf_sampler *s);
/* Starts the thread that reads the layouts of JVMs started from now on
 * (before the capabilities are dropped: it keeps CAP_SYS_PTRACE, which
 * reading another process's memory takes). 0, or -errno (those JVMs are
 * then not read, and counted). */
int hotspot_reader_start(struct hotspot_procs *h);
/* An MMAP2 of libjvm.so's code makes m->pid, if the recording's scope holds
 * it, a JVM for the walk: its layout read now (at the start) or by the
 * reader's thread once the JVM has set it up (started since); appends to
 * rec the MMAP2 of the range its Java frames are written in and returns
 * true; false for any other mapping. */
bool hotspot_procs_note_mmap(struct hotspot_procs *h, const struct perf_mmap *m,
			     const struct perf_sample_id *sid, struct byte_buffer *rec);
/* pid exited, or exec'd another program: named a last time, no longer a
 * JVM for the walk; its map handed to the copies, or (a flight recording)
 * kept among the last exited. */
void hotspot_procs_exited(struct hotspot_procs *h, uint32_t pid);
/* Names the methods the walks wrote since the last call, while their JVMs run. */
void hotspot_procs_name_seen(struct hotspot_procs *h);
/* Names what is left and writes DIR/perf-PID.map of each JVM left. */
void hotspot_procs_finish(struct hotspot_procs *h);
/* The same into dirfd (dirpath): what the walks wrote so far, named (a
 * flight recorder's snapshot, from its own thread). */
void hotspot_procs_write_maps(struct hotspot_procs *h, int dirfd, const char *dirpath);
void hotspot_procs_print_totals(struct hotspot_procs *h, const struct bpf_sampler *s);
void hotspot_procs_free(struct hotspot_procs *h);

#endif
