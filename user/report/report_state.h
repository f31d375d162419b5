/* SPDX-License-Identifier: GPL-2.0-only */
/* report_state.h: what report adds a recording's samples up into (rows by
 * the sort keys, folded stacks, totals by event), shared by the adding
 * (report.c) and the table's printing (report_table.c). */
#ifndef RINGTRACE_REPORT_STATE_H
#define RINGTRACE_REPORT_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/byte_buffer.h"
#include "lib/direct_cache.h"
#include "lib/hash_map.h"
#include "report/call_graph.h"
#include "report/recording.h"
#include "report/report.h"
#include "report/report_pprof.h"
#include "report/sample_filter.h"

/* One row of the report; fields of keys not selected stay zero so that
 * hashing and comparing the whole key groups by the selected ones only. */
struct row_key {
	const char *comm;
	const char *dso;
	const char *sym;
	const char *cgroup;
	/* with sym: which symbol of that name, as perf's sort__sym_cmp tells
	 * them apart: its file (when dso is no key) and its start (of an
	 * "NAME (inlined)", the start of the symbol it was inlined into: a
	 * row per function it is inlined in) */
	const char *sym_dso;
	uint64_t sym_start;
	uint64_t pid_tid;
	uint32_t cpu;
	uint16_t kernel;
	uint16_t event; /* index in the input's events: always a key */
};

/* Whether a row's symbol is an address without a symbol (frame_key's
 * "0x..."; no symbol's name starts with a digit). Such rows are one per
 * address whatever their [k] or [.] (perf's sort__sym_cmp compares the
 * address alone; the first frame's mode is the one shown). */
static inline bool row_sym_is_address(const char *sym)
{
	return sym && sym[0] == '0' && sym[1] == 'x';
}

/* A frame of the sample a table is given: its ip and what it resolved to. */
struct table_frame {
	uint64_t ip;
	struct resolved where;
};

struct row {
	struct row_key key;
	uint64_t samples;
	uint64_t period;   /* self */
	uint64_t children; /* self and every sample it was a caller in */
	struct graph_node *graph; /* -g: its stacks, or NULL */
	uint32_t graph_depth;     /* -g: the most frames of a stack added to it */
	uint64_t thread;          /* pid << 32 | tid of the sample that made it */
};

/* What one event's samples add up to. */
struct event_totals {
	uint64_t samples;       /* all of them */
	uint64_t shown_samples; /* those that passed the filters */
	uint64_t shown_period;  /* the 100% of the event's section */
};

/* A unique folded stack and its samples (or, for offcpu-time, its
 * nanoseconds off CPU). */
struct folded {
	const char *stack; /* interned */
	uint64_t count;
};

/* The off-CPU event (record --off-cpu, perf record --off-cpu): its folded
 * stacks count microseconds off CPU, as bcc's offcputime folds them. */
#define OFFCPU_EVENT_NAME "offcpu-time"

#define MAX_FRAMES 512
/* The frames of a sample a table's --children counts, at most: perf
 * report's --max-stack default (PERF_MAX_STACK_DEPTH, as script's), the
 * outermost ones (perf's --children walks a stack callers first). */
#define REPORT_MAX_STACK 127

/* Without --children, the row a sample's leaf lands in, kept by what decides
 * it (the sample's own keys, and its ip as resolved in its process until the
 * mappings change): the same few thousand leaves come back a million times,
 * and a hit skips resolving, naming and hashing the row. Direct-mapped. */
#define LEAF_ROW_BITS 12 /* at most; fewer while fewer leaves came */

struct leaf_row {
	struct row_key base; /* the sample's keys but dso and sym */
	uint64_t ip;
	uint32_t pid;
	uint32_t generation; /* of the mappings; 0: empty */
	uint16_t cpumode;
	struct row *row;
};

/* A kernel leaf whose resolving waits for kallsyms (report.c). */
struct deferred_leaf {
	struct row_key base;
	uint64_t ip, period;
	uint64_t kernel_start; /* where the kernel was mapped when it came */
	uint32_t pid;
};

/* A name rows go by, as perf compares them: a file's short name (two files
 * of one name are one dso to perf's sort__dso_cmp), a symbol's name
 * interned (two copies of a program have one symbol at each start to perf's
 * sort__sym_cmp), keyed by the address of the string it is made from. */
struct row_name {
	uint64_t from;
	const char *name;
};

struct report_state {
	const struct report_options *o;
	struct recording rec;
	struct sample_filter filter; /* --comm, --pid, --cpu, --time */
	uint64_t names_budget_ns;    /* what is left of o->names_budget_ns */
	struct hash_map rows;
	struct hash_map dso_names;   /* a file's interned path -> struct row_name */
	struct hash_map sym_names;   /* a symbol's name (a file's string) -> struct row_name */
	struct hash_map stacks;      /* &interned stack -> struct folded */
	struct event_totals *events; /* by index in rec.in.events */
	int only_event;              /* the one event shown, or -1 */
	bool weigh_by_time;          /* it is offcpu-time: stacks weigh its periods */
	/* the sample being added, frame by frame (MAX_FRAMES each): a table's
	 * frames as resolved, leaf first, then their rows' keys, and the
	 * leaf's row (self) */
	struct table_frame *table_frames;
	struct row_key *frame_keys;
	struct row_key leaf_key;
	const char **frame_names;
	unsigned int nr_frames;
	struct byte_buffer line;
	struct report_pprof pprof;   /* --pprof */
	/* -g: every row's call graph; the sample's frames as its tree tells
	 * them apart, in the graph's order (perf's callchain cursor) */
	struct call_graph graph;
	struct graph_frame *graph_frames; /* REPORT_MAX_STACK */
	/* the order perf walks a stack in for the table (its cursor's): callees
	 * first (leaf first), else callers first */
	bool callee_first;
	struct direct_cache leaf_rows; /* struct leaf_row; none without a table of leaves */
	struct byte_buffer deferred;   /* struct deferred_leaf: kernel leaves waiting for kallsyms */
	unsigned int keys;           /* key_mask(o) */
};

#define KEY(k) (1u << (k))

/* report_rows.c: the table's rows, keyed as perf's sort keys compare. */
uint64_t report_row_hash(const void *k);
bool report_row_equal(const void *a, const void *b);
/* A leaf's row remembered by the sample's ip, pid and mode (st->leaf_rows). */
uint64_t report_leaf_row_hash(const struct row_key *base, uint64_t ip, uint32_t pid,
			      uint16_t cpumode);
bool report_keep_leaf_row(const void *slot, const void *as, uint64_t *hash);
/* The row of key, made if new; NULL if memory ran out. */
struct row *report_get_row(struct report_state *st, const struct row_key *key);
/* key: base with the frame where (shown as the address shown when it has no
 * symbol) under the sort keys; kernel its [k] or [.]. -ENOMEM. */
int report_frame_key(struct report_state *st, const struct row_key *base,
		     const struct resolved *where, uint64_t shown, bool kernel, struct row_key *key);
/* The sample whose frames st holds added to the table: self to its leaf's row,
 * with --children its period to every row of its stack once. -ENOMEM. */
int report_add_to_table(struct report_state *st, const struct row_key *base, bool kernel,
			uint64_t period, uint64_t thread);

/* The rows of every event, sorted by weight, each event's under its header:
 * 0, or -ENOMEM if memory ran out. */
int report_print_table(struct report_state *st, FILE *out);

/* Prints st's folded stacks (--folded) or draws them (--flamegraph): 0, or
 * -errno with err set. In report_stacks.c. */
int report_print_stacks(struct report_state *st, FILE *out, char *err, size_t errlen);

#endif
