/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_procs.h: what the process tables of the runtimes the -g walk names
 * frames of (CPython, HotSpot, V8) share: their processes by pid, each with the
 * names it tried and its perf map's lines, an exited one's map handed to the
 * copies or kept, the maps written into a directory; and a thread of their own. */
#ifndef RINGTRACE_RUNTIME_PROCS_H
#define RINGTRACE_RUNTIME_PROCS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "lib/byte_buffer.h"
#include "lib/hash_map.h"
#include "sys/file_copies.h"

/* Exited processes whose names a flight recording keeps (its ring may
 * still hold their samples) by runtime_procs_exited; past them, the one
 * that exited first is let go. */
#define RUNTIME_EXITED_MAX 32

/* A process of a runtime: the first member of the runtime's own. */
struct runtime_proc {
	uint32_t pid;
	bool live;                /* told to the BPF side, running */
	uint64_t exited_seq;      /* kept after its exit (a flight recording's), or 0 */
	struct hash_map named;    /* address -> an entry beginning with it: names tried */
	struct byte_buffer map;   /* the lines of its perf map */
};

struct runtime_procs {
	/* held by the threads that note, name and write the maps (the
	 * runtime's table says which) */
	pthread_mutex_t lock;
	bool on;
	bool attached;             /* the BPF side's maps are known */
	const struct bpf_sampler *sampler; /* ...and the scope's processes */
	int dirfd;                 /* the recording's directory */
	/* where an exited process's map goes at once (the end of a recording
	 * writes the rest); NULL for a flight recording, which keeps the maps
	 * of the last exited processes for its snapshots */
	struct file_copies *copies;
	const char *noun;          /* a process's, in warnings ("JVM") */
	struct hash_map files;     /* struct file_key -> the runtime's file: looked at */
	struct hash_map procs;     /* pid -> the runtime's process */
	uint64_t exited_seq;       /* exits kept so far */
	uint32_t nr_exited;        /* ...of them still kept by runtime_procs_exited */
	/* totals */
	uint64_t maps_written, maps_failed;
	uint64_t evicted;          /* exited processes' names let go */
};

/* A runtime's thread of its own (V8's namer, HotSpot's reader), woken on
 * its table's lock. */
struct runtime_worker {
	pthread_t thread;
	pthread_cond_t wake;       /* its deadlines CLOCK_MONOTONIC's */
	bool started, stopping;
};

/* Off unless on; dirfd (the caller's) is where the maps go: through copies
 * as each process exits, or (copies NULL: a flight recording) by
 * runtime_procs_write_maps; noun names a process in warnings. */
void runtime_procs_init(struct runtime_procs *t, int dirfd, struct file_copies *copies, bool on,
			const char *noun);
/* Whether the recording's scope holds process pid (-p's, the workload,
 * what they forked): any, before the sampler is attached (the start's
 * processes are taken by the pids asked for). */
bool runtime_procs_in_scope(const struct runtime_procs *t, uint32_t pid);
/* A process noted for pid (t->lock held): size bytes zeroed (the runtime's
 * process, its struct runtime_proc first), its pid set; an exited process's
 * pid taken again, or a process that exec'd another program, let go first
 * (not the names of the first). NULL without memory. */
void *runtime_procs_new_proc(struct runtime_procs *t, uint32_t pid, size_t size);
/* Frees pr, its names and map (no longer among the processes). */
void runtime_proc_free(struct runtime_proc *pr);
/* pr let go (t->lock held): no longer among the processes (nor among the
 * exited kept). */
void runtime_procs_let_go(struct runtime_procs *t, struct runtime_proc *pr);
/* pr's map to the copies' thread (added to a JIT's own map copied as it
 * exited: CPython's -X perf trampolines'), and pr (not kept) let go
 * (t->lock held). */
void runtime_procs_hand_over(struct runtime_procs *t, struct runtime_proc *pr);
/* pr exited, no longer walked (t->lock held, pr not kept already): handed
 * over, or (copies NULL: a flight recording) kept among the last
 * RUNTIME_EXITED_MAX exited. */
void runtime_procs_exited(struct runtime_procs *t, struct runtime_proc *pr);
/* dirpath/perf-PID.map (dirfd) of each process that named any (t->lock
 * held). */
void runtime_procs_write_maps(struct runtime_procs *t, int dirfd, const char *dirpath);
void runtime_procs_free(struct runtime_procs *t);

void runtime_worker_init(struct runtime_worker *w);
/* Starts run(arg) as w, named name, if not started: 0, or -errno. */
int runtime_worker_start(struct runtime_worker *w, void *(*run)(void *), void *arg,
			 const char *name);
/* Ends w, if started: stopping set and w woken under lock, then joined. */
void runtime_worker_stop(struct runtime_worker *w, pthread_mutex_t *lock);
void runtime_worker_free(struct runtime_worker *w);

#endif
