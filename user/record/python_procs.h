/* SPDX-License-Identifier: GPL-2.0-only */
/* python_procs.h: the CPython processes of a -g recording: recognized from their
 * mappings, told to the BPF walk, their code objects named into DIR/perf-PID.map. */
#ifndef RINGTRACE_PYTHON_PROCS_H
#define RINGTRACE_PYTHON_PROCS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/python_loader.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "record/python_lineage.h"
#include "record/runtime_procs.h"
#include "symbols/python_offsets.h"
#include "sys/file_copies.h"

/* The bytes of the names of exited processes a flight recording keeps (its
 * ring may still hold their samples): each one's map, names tried and
 * bookkeeping; past it, the oldest exited are let go first. */
#define PYTHON_EXITED_BYTES (8u << 20)

/* An exited process kept: its pid, and which of its exits. */
struct python_exited {
	uint32_t pid;
	uint64_t seq;
};

struct python_procs {
	/* its lock held by the drain thread to note and name, and by a flight
	 * recorder's snapshot thread to write the maps into a snapshot; files:
	 * struct file_key -> struct python_file, procs: pid -> struct
	 * python_proc; the exited kept within a budget of their own (below),
	 * not by runtime_procs_exited */
	struct runtime_procs base;
	/* the exited processes kept: a ring, oldest first from exited_head,
	 * grown as exits come; an entry whose process was let go early (its
	 * pid taken again) stays until evicted, its own bytes counted */
	struct python_exited *exited;
	uint32_t exited_head, nr_exited, exited_cap;
	size_t exited_bytes;       /* what they hold: within PYTHON_EXITED_BYTES */
	struct python_maps maps;
	/* offsets interpreters' own _Py_DebugOffsets gave where they differ
	 * from the table's: python_offsets entries from python_offsets_count() */
	struct python_version_offsets own[RT_PY_MAX_OFFSETS];
	uint32_t nr_own;
	struct python_lineage lineage; /* execs and forks read a while ago */
	uint64_t live_forked;      /* live processes forked by another */
	/* totals */
	uint64_t processes;        /* CPython processes unwound */
	uint64_t forked;           /* ...of them, children forked by another */
	uint64_t forked_execd;     /* ...of those, exec'd another program (subprocess) */
	uint64_t not_unwound;      /* CPython processes of a version without offsets */
	uint64_t not_told;         /* ...or the BPF map full */
	uint64_t own_refused;      /* ...or their _Py_DebugOffsets not usable, or no slot for them */
	uint64_t named, name_failed, names_dropped;
};

/* Off unless on (-g); dirfd (the caller's) is where the maps go: through
 * copies as each process exits, or (copies NULL: a flight recording) by
 * python_procs_write_maps. */
void python_procs_init(struct python_procs *p, int dirfd, struct file_copies *copies, bool on);
/* Once the sampler is loaded: its maps given the offsets table and the
 * processes noted so far (those the start's side-band names). */
void python_procs_attach(struct python_procs *p, const struct bpf_sampler *s);
/* An MMAP2 of a CPython interpreter's code (a python program or libpython,
 * 3.11) makes m->pid, if the recording's scope holds it, a Python process
 * for the walk: appends to rec the
 * MMAP2 of the range its Python frames are written in ("//anon", sid as
 * the interpreter's), and those of the children it forked since (their
 * forks read first), and returns true; false for any other mapping. */
bool python_procs_note_mmap(struct python_procs *p, const struct perf_mmap *m,
			    const struct perf_sample_id *sid, struct byte_buffer *rec);
/* A FORK by parent, a CPython process (sid: the fork's time, the child's
 * ids), makes the child one as well, the same interpreter at the same
 * addresses (a pre-fork server's workers, multiprocessing's): appends to
 * rec its range's MMAP2 (its map of names is its own) and returns true;
 * false if the parent is not one, or the child is known to have exec'd or
 * exited since, or is outside the recording's scope. A fork by a process
 * not (yet) known as one is kept a while: the parent's MMAP2, read later,
 * makes the child one then (python_procs_note_mmap). */
bool python_procs_note_fork(struct python_procs *p, uint32_t parent,
			    const struct perf_sample_id *sid, struct byte_buffer *rec);
/* pid exec'd at time (what it mapped after stays): named a last time, no
 * longer a Python process for the walk, nor are the children it forked
 * since (their forks read first: the program it exec'd forked them). */
void python_procs_forget(struct python_procs *p, uint32_t pid, uint64_t time);
/* pid exited at time (UINT64_MAX: not known): forgotten as by an exec,
 * then its map handed to the copies and the process let go, or (a flight
 * recording) kept among the last exited; a fork of it read later makes no
 * Python process. */
void python_procs_exited(struct python_procs *p, uint32_t pid, uint64_t time);
/* Names the code objects the walks wrote since the last call (at most a
 * few thousand a call), while their processes run. */
void python_procs_name_seen(struct python_procs *p);
/* Names what is left and writes DIR/perf-PID.map of each process left. */
void python_procs_finish(struct python_procs *p);
/* The same into dirfd (dirpath): what the processes' walks wrote so far,
 * named (a flight recorder's snapshot, from its own thread). */
void python_procs_write_maps(struct python_procs *p, int dirfd, const char *dirpath);
void python_procs_print_totals(const struct python_procs *p, const struct bpf_sampler *s);
void python_procs_free(struct python_procs *p);

#endif
