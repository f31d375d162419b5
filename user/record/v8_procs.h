/* SPDX-License-Identifier: GPL-2.0-only */
/* v8_procs.h: the Node.js processes of a -g recording: recognized from their
 * binary's mappings by the layout V8 exports, told to the BPF walk, the JavaScript
 * functions it wrote named into DIR/perf-PID.map by a thread of their own. */
#ifndef RINGTRACE_V8_PROCS_H
#define RINGTRACE_V8_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/v8_loader.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "record/runtime_procs.h"
#include "sys/file_copies.h"

/* How often the namer takes the functions the walks wrote, and how many at
 * most each time; and the pcs of optimized code it decodes (each a read of
 * up to 80 KiB of the code's tables): the rest wait for the next time. */
#define V8_NAMER_PERIOD_MS 50
#define V8_TAKE_PER_CALL 1024
#define V8_DECODE_PER_CALL 128
/* Functions named per process, and bytes of its map's lines, at most (more
 * are counted, not named). */
#define V8_NAMES_PER_PROCESS 65536
#define V8_MAP_BYTES (16u << 20)

struct v8_procs {
	/* its lock held by the drain thread to note processes, by the namer's
	 * thread to name (not while it reads a process's memory), and by a
	 * flight recorder's snapshot thread to write the maps into a snapshot;
	 * files: struct file_key -> struct v8_file, procs: pid -> struct v8_proc */
	struct runtime_procs base;
	struct v8_maps maps;
	uint64_t next_serial;      /* a process noted's (a pid taken again is another's) */
	struct runtime_worker namer; /* the namer's thread (v8_namer.c) */
	/* totals */
	uint64_t processes;        /* Node.js processes unwound */
	uint64_t unknown_version;  /* ...of a V8 whose layout the walk does not know */
	uint64_t not_told;         /* ...not told: the BPF map full */
	uint64_t named;            /* functions named */
	uint64_t stale;            /* ...not: moved by V8's collector (or another's) since */
	uint64_t name_failed;      /* ...not: unreadable (gone, or not laid out as known) */
	uint64_t names_dropped;    /* ...not: no room, or their process gone */
	/* pcs of optimized code decoded: with functions inlined there, with
	 * none, or not (its code not the function's: on-stack replacement's,
	 * or replaced since; unreadable) */
	uint64_t pcs_decoded, pcs_not_inlined, pcs_undecoded;
	char last_error[128];      /* why the last function was not read */
};

/* Off unless on (-g); dirfd (the caller's) is where the maps go: through
 * copies as each process exits, or (copies NULL: a flight recording) by
 * v8_procs_write_maps. */
void v8_procs_init(struct v8_procs *v, int dirfd, struct file_copies *copies, bool on);
/* Once the sampler is loaded: its maps given the processes noted so far
 * (those the start's side-band names). */
void v8_procs_attach(struct v8_procs *v, const struct bpf_sampler *s);
/* Starts the thread that names the functions the walks write (before the
 * capabilities are dropped: it keeps CAP_SYS_PTRACE, which reading another
 * process's memory takes). 0, or -errno (none is named then, and they are
 * counted). */
int v8_namer_start(struct v8_procs *v);
/* An MMAP2 of a Node.js binary's code makes m->pid, if the recording's
 * scope holds it, a process whose JavaScript frames the walk writes (its
 * binary's layout read once a file): appends to rec the MMAP2 of the range
 * they are written in and returns true; false for any other mapping. */
bool v8_procs_note_mmap(struct v8_procs *v, const struct perf_mmap *m,
			const struct perf_sample_id *sid, struct byte_buffer *rec);
/* pid exited, or exec'd another program: no longer one for the walk; its
 * map handed to the copies, or (a flight recording) kept among the last
 * exited. */
void v8_procs_exited(struct v8_procs *v, uint32_t pid);
/* Names what the walks wrote last, ends the namer, and writes
 * DIR/perf-PID.map of each process left. */
void v8_procs_finish(struct v8_procs *v);
/* The same into dirfd (dirpath): what was named so far (a flight
 * recorder's snapshot, from its own thread). */
void v8_procs_write_maps(struct v8_procs *v, int dirfd, const char *dirpath);
void v8_procs_print_totals(struct v8_procs *v, const struct bpf_sampler *s);
/* Ends the namer's thread, if started, and frees everything. */
void v8_procs_free(struct v8_procs *v);

/* v8_namer.c, v->base.lock held by none: names what the walks wrote so far
 * (the namer's thread does this each V8_NAMER_PERIOD_MS, the end once more). */
void v8_namer_take(struct v8_procs *v);
void v8_namer_stop(struct v8_procs *v);

#endif
