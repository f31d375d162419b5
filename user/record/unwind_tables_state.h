/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_tables_state.h: the files whose tables the unwinder has and the
 * processes mapping them, shared by the tables' keeping (unwind_tables.c)
 * and the processes' tracking from the side-band (unwind_processes.c). */
#ifndef RINGTRACE_UNWIND_TABLES_STATE_H
#define RINGTRACE_UNWIND_TABLES_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "format/perf_record.h"
#include "record/unwind_file_key.h"
#include "record/unwind_tables.h"

/* A file the unwinder has a table for: its key is the kernel's identity of
 * it (device and inode), never a build-id, which any copy can claim. */
struct unwind_file {
	struct file_key key;
	struct timespec ctime;       /* of the version its table was compiled from */
	uint64_t generation;         /* the inode's, once a kernel record gave it */
	bool generation_known;
	bool ready;                  /* its table compiled (or found impossible) */
	bool urgent;                 /* its compile goes before the start's backlog */
	bool building;               /* the builder has it (a first stage's table may be in) */
	bool evicted;                /* (while its eviction is carried out) */
	bool no_room;                /* its table found no room: tried again later */
	bool counted_no_room;        /* in the totals once */
	uint32_t rows_wanted;        /* by the table that found no room */
	uint64_t no_room_ns;         /* when (CLOCK_MONOTONIC) */
	struct rt_unwind_slice table; /* nr_rows 0: no table, frame pointers */
	int64_t exec_vaddr_delta;
	struct rt_unwind_file_key id; /* as the kernel knows the file; ino 0: unknown */
	uint64_t last_mapped;        /* when a process mapped it last (t->map_clock) */
	uint64_t mapped_epoch;       /* t->mark_epoch when found mapped */
	struct rt_unwind_row *waiting; /* its table, waiting for room; or NULL */
	uint32_t nr_waiting_rows;
	/* --unwind-tables sampled: not compiled until a walk meets it; path
	 * (as first seen), pid, [start, end): the last mapping of it seen, by
	 * which it is opened again when no tracked process maps it then */
	bool deferred;
	uint8_t unmapped_prunes; /* prunes in a row that found it unmapped */
	char *path;
	uint32_t pid;
	uint64_t start, end;
};

/* A mapping of the start's side-band (whose records name files by build-id):
 * the identity of the file it maps, opened while the capabilities were held. */
struct start_mapping {
	struct start_mapping_key {
		uint32_t pid, pad;
		uint64_t start;
	} at;
	struct file_key file;
	struct timespec ctime;
};

/* What a mapping of pm came from, at the same index. */
struct mapping_origin {
	struct unwind_file *file; /* NULL if it could not be opened */
	uint64_t pgoff;
};

/* A process forked while the start's side-band is queued: the queued
 * mappings of the process it descends from are its too. */
struct start_heir {
	uint32_t pid, from;
};

struct unwind_process {
	uint32_t pid;
	bool until_exec; /* a workload not yet exec'd: its mappings are ours */
	bool exec_seen;  /* its exec was tracked: what its parent maps is not its */
	bool unwritten;  /* pm changed since it was written to the BPF side */
	struct rt_process_mappings pm;
	struct mapping_origin origin[RT_UNWIND_MAX_MAPPINGS];
};

/* unwind_tables.c: the process pid, added (zeroed) if new; NULL if memory
 * ran out. */
struct unwind_process *unwind_add_process(struct unwind_tables *t, uint32_t pid);
/* unwind_tables.c: the file m maps, its table loaded the first time it is
 * seen (urgent: before the start's backlog); NULL if it cannot be opened. */
struct unwind_file *unwind_file_of(struct unwind_tables *t, const struct perf_mmap *m,
				   bool urgent);

/* unwind_tables.c: hands the file fd (closed) to the builder for f. */
void unwind_submit(struct unwind_tables *t, struct unwind_file *f, int fd, bool urgent);
/* unwind_tables.c: f will have no table: the kernel side told so (an empty
 * one), so that its stacks are walked by frame pointers there, never copied
 * as those of a table still to come (--stack-copy-budget). */
void unwind_without_table(struct unwind_tables *t, struct unwind_file *f);
/* unwind_on_demand.c (--unwind-tables sampled): the files walks met without
 * a table compiled, and those no process maps forgotten. */
void unwind_serve_walks(struct unwind_tables *t);

/* unwind_processes.c: one side-band record (MMAP2, COMM exec, FORK, EXIT)
 * tracked into the processes' mappings; queued: from the start's backlog. */
void unwind_track(struct unwind_tables *t, const struct perf_sideband *rec, bool queued);
/* unwind_processes.c: the mappings changed since the last call written to the
 * BPF side, once for each process. */
void unwind_write_mappings(struct unwind_tables *t);
/* unwind_processes.c: the queued process whose start mappings pid has (pid
 * itself when none forked meanwhile descends from another). */
uint32_t unwind_start_ancestor(const struct unwind_tables *t, uint32_t pid);
/* unwind_processes.c: every process mapping f gets its rows, now loaded. */
void unwind_give_rows(struct unwind_tables *t, struct unwind_file *f);
/* unwind_processes.c: a tracked process's mapping of f (its pid and
 * [start, end)): whether there is one. */
bool unwind_find_mapping(const struct unwind_tables *t, const struct unwind_file *f, uint32_t *pid,
			 uint64_t *start, uint64_t *end);

#endif
