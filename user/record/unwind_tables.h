/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_tables.h: the in-kernel unwinder's tables kept current: one per file
 * (by the kernel's identity of it: device and inode), each process's
 * executable mappings. */
#ifndef RINGTRACE_UNWIND_TABLES_H
#define RINGTRACE_UNWIND_TABLES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/unwind_loader.h"
#include "lib/hash_map.h"
#include "record/sideband_order.h"
#include "record/unwind_mem_default.h"
#include "symbols/unwind_compile.h"

/* The most track_delay_ns is (at 99 Hz and below). */
#define TRACK_DELAY_MAX_NS (20 * 1000000ull)

/* Processes whose mappings the unwinder knows at once. */
#define UNWIND_MAX_PROCESSES 16384

struct unwind_builder;

struct unwind_tables {
	bool on;
	struct unwind_builder *builder; /* compiles tables in a thread of its own */
	struct unwind_cache *cache;     /* tables kept between runs, or NULL */
	char *cache_dir;
	struct unwind_maps maps;
	struct hash_map files;     /* device and inode -> struct unwind_file */
	/* side-band synthesized at the start, worked through a slice at a time */
	const uint8_t *queued;
	size_t queued_len, queued_off;
	struct hash_map superseded; /* pids whose exec or exit was seen meanwhile */
	/* processes forked meanwhile, each with the queued process whose
	 * start mappings it inherits (its parent's, or that one's own) */
	struct start_heir *heirs;
	size_t nr_heirs, heirs_cap;
	struct hash_map preopened;  /* file key -> struct preopened: the queued files,
				     * opened while ringtrace still had its capabilities */
	struct hash_map start_mappings; /* the queued mappings' files: struct start_mapping */
	const _Atomic bool *start_abandoned; /* the recording's start given up: its work stops */
	struct hash_map processes; /* pid -> struct unwind_process */
	/* processes whose mappings changed since they were last written to the
	 * BPF side: written once a pass, not at each MMAP2 (a write copies
	 * every mapping a process may have) */
	uint32_t *unwritten;
	size_t nr_unwritten, unwritten_cap;
	bool every_process;        /* -a and the like: not only the targets */
	bool on_demand;            /* --unwind-tables sampled: a file's table compiled once
				      a walk meets it (not when a process maps it) */
	uint64_t prune_ns;         /* when (CLOCK_MONOTONIC) files were last pruned */
	bool follow_forks;
	uint64_t sample_id_type;   /* of the side-band records */
	/* the side-band of every CPU, put back in time order before tracking */
	struct sideband_order order;
	/* eviction (unwind_eviction.c) */
	uint64_t map_clock, mark_epoch;
	struct unwind_file **waiting; /* tables waiting for room, in order */
	size_t nr_waiting, waiting_cap;
	uint64_t waiting_rows;
	/* totals */
	uint64_t nr_files, files_without_table, files_without_room, mappings_dropped;
	uint64_t files_evicted, rows_evicted;
	uint64_t files_changed;    /* found changed since their table: compiled again */
	uint64_t files_refused[UNWIND_NR_REFUSALS]; /* files without a table, by why */
	uint64_t rows;             /* loaded into the map, first stages' too */
	uint64_t first_stages;     /* files given a first stage's table before the whole */
	uint64_t first_stage_rows; /* rows of first stages, replaced by the whole */
	uint64_t files_from_cache;
	/* --unwind-tables sampled */
	uint64_t files_deferred;   /* seen mapped, left until a walk met them */
	uint64_t files_wanted;     /* ...met by a walk, compiled */
	uint64_t wanted_gone;      /* ...met, but no longer mapped nor to be opened */
	uint64_t files_pruned;     /* forgotten (no table, or none yet), none mapping them */
	double build_seconds;
	/* for the totals: --unwind-mem and --stack-copy-budget (0: no copies),
	 * and what --unwind-mem's default was sized from (processes 0: it was
	 * given, or the recording is of some processes only) */
	uint64_t mem, copy_budget;
	/* how long after its time held side-band waits for a pass of its own,
	 * beyond the time a record takes to reach its ring: two sample periods
	 * (a new process's first walks search its mappings in the kernel
	 * meanwhile), so that a churn of processes wakes the loop a few times
	 * a period, not at each of their records */
	uint64_t track_delay_ns;
	struct unwind_machine_text machine;
};

/* Rows that fit in mem bytes. */
uint32_t unwind_tables_rows_for(uint64_t mem);
/* What a row takes of the kernel's memory, its share of the page index in. */
#define UNWIND_ROW_KERNEL_BYTES                                                             \
	(((sizeof(struct rt_unwind_row) + 7) & ~(size_t)7) + sizeof(uint32_t) / RT_UNWIND_ROWS_PER_PAGE)
/* Starts with the processes in tgids (or every process when nr_tgids is 0).
 * Tables are kept in the directory cache_dir between runs (NULL: none; one
 * that cannot be used is warned about, and the recording goes on without),
 * its entries within cache_size bytes. on_demand (--unwind-tables sampled,
 * s loaded with it): a file's table is compiled once a walk meets the file,
 * not when a process maps it. */
int unwind_tables_init(struct unwind_tables *t, const struct bpf_sampler *s, uint32_t rows,
		       const uint32_t *tgids, unsigned int nr_tgids, bool follow_forks,
		       uint64_t sample_id_type, const char *cache_dir, uint64_t cache_size,
		       bool on_demand, const _Atomic bool *start_abandoned);
/* A side-band record (MMAP2, COMM of an exec, FORK, EXIT) as drained from
 * one CPU's ring, decoded: kept until unwind_tables_release passes its time, so that
 * a process's fork, exec and mappings are tracked in the order they
 * happened whichever CPUs they landed on and whichever was drained first. */
void unwind_tables_note(struct unwind_tables *t, const struct perf_sideband *rec);
/* Tracks the records noted so far that are stamped at or before until (the
 * side-band clock's ns): every CPU's ring has been drained past it. */
void unwind_tables_release(struct unwind_tables *t, uint64_t until);
/* Every CPU's side-band ring was drained from pass_start on (the side-band
 * clock's ns): tracks what is surely in the rings by then. */
void unwind_tables_drained(struct unwind_tables *t, uint64_t pass_start);
/* Whether side-band (or a table waiting for room) waits for the next pass;
 * *release_ns: the side-band clock's time a pass starting then tracks the
 * oldest record held (0: a table waits, as soon as can be). */
bool unwind_tables_holding(const struct unwind_tables *t, uint64_t *release_ns);
/* Queues the side-band synthesized at the start (buf must outlive the
 * work): its tables are built by unwind_tables_work, a slice at a time, so
 * that the recording drains its rings meanwhile. */
void unwind_tables_queue(struct unwind_tables *t, const void *buf, size_t len);
/* Works through the queue for about budget_ms; true while some is left. */
bool unwind_tables_work(struct unwind_tables *t, unsigned int budget_ms);
/* Opens the files the queued side-band maps executable (at most a few
 * hundred), before the capabilities that open other processes' files
 * (/proc/PID/map_files) are dropped; the slices compile from them later. */
void unwind_tables_open_queued(struct unwind_tables *t);
/* pid is a workload forked but not yet exec'd: what it maps until its exec
 * is ringtrace's own, not worth a table; but program's table, and those of
 * the C library and dynamic loader, are compiled now, before it runs. Call
 * after unwind_tables_queue. */
void unwind_tables_await_exec(struct unwind_tables *t, uint32_t pid, const char *program);
/* Readable when compiled tables wait: then unwind_tables_collect loads them
 * and gives their rows to the mappings waiting for them; and (on_demand)
 * hands the builder the files walks met without a table, and forgets, about
 * once a second, the files without a table that no process maps. */
int unwind_tables_fd(const struct unwind_tables *t);
void unwind_tables_collect(struct unwind_tables *t);
/* --unwind-tables sampled (tables is a struct unwind_tables): false only for
 * a file (major, minor, inode) mapped that no walk has met, whose names no
 * sample asks for (for unlinked_copies_only_met). */
bool unwind_tables_file_met(void *tables, uint64_t maj, uint64_t min, uint64_t ino);
/* One line of totals, with the BPF side's counters (NULL if none). */
void unwind_tables_print_totals(const struct unwind_tables *t, const struct bpf_sampler *s,
				bool verbose, bool quiet);
/* With the BPF side's counters c: a line for each way the tables cost
 * stacks (their share, why, the option that helps), none when none did. */
void unwind_print_losses(const struct unwind_tables *t, const struct rt_unwind_counters *c);
/* Stacks that met a file whose table was not loaded, walked by frame
 * pointers there (not copied). */
uint64_t unwind_stacks_walked_pending(const struct rt_unwind_counters *c);
void unwind_tables_free(struct unwind_tables *t);

#endif
