/* SPDX-License-Identifier: GPL-2.0-only */
/* report_rows.c: a sample's rows in the table: their keys, as perf's sort
 * keys compare them (files by their short name, symbols by their start),
 * made or found, remembered by leaf, and given the sample's period (self to
 * the leaf's, with --children to every row on its stack once). */
#include "report/report_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "report/call_graph.h"
#include "symbols/address_space.h"

/* Once per sample: the fields folded by multiplying (a polynomial in an odd
 * constant, cheap), then mixed once. */
uint64_t report_row_hash(const void *k)
{
	const struct row_key *r = k;
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	uint64_t h = (uintptr_t)r->comm;

	h = h * m + (uintptr_t)r->dso;
	h = h * m + (uintptr_t)r->sym;
	h = h * m + ((uintptr_t)r->cgroup ^ (uintptr_t)r->sym_dso ^ r->sym_start);
	h = h * m + r->pid_tid;
	h = h * m + ((uint64_t)r->cpu << 32 | (uint64_t)r->event << 1 |
		     (row_sym_is_address(r->sym) ? 0 : r->kernel));
	return hash_u64(h);
}

bool report_row_equal(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	return x->comm == y->comm && x->dso == y->dso && x->sym == y->sym &&
	       x->sym_dso == y->sym_dso && x->sym_start == y->sym_start && x->cgroup == y->cgroup &&
	       x->pid_tid == y->pid_tid && x->cpu == y->cpu &&
	       (x->kernel == y->kernel || row_sym_is_address(x->sym)) && x->event == y->event;
}

/* A folded stack's key: the address of its interned string (one string per
 * stack, so the pointer tells stacks apart). */
uint64_t report_leaf_row_hash(const struct row_key *base, uint64_t ip, uint32_t pid,
			      uint16_t cpumode)
{
	return (ip ^ ((uint64_t)pid << 40) ^ ((uint64_t)cpumode << 32) ^ (uintptr_t)base->comm ^
		base->pid_tid ^ base->cpu) *
	       0x9e3779b97f4a7c15ULL;
}

bool report_keep_leaf_row(const void *slot, const void *as, uint64_t *hash)
{
	const struct leaf_row *e = slot;

	*hash = report_leaf_row_hash(&e->base, e->ip, e->pid, e->cpumode);
	return e->generation == ((const struct address_space *)as)->generation;
}

struct row *report_get_row(struct report_state *st, const struct row_key *key)
{
	struct row *row = hash_map_get(&st->rows, key);

	if (row)
		return row;
	if (!(row = calloc(1, sizeof(*row))))
		return NULL;
	row->key = *key;
	if (!hash_map_put(&st->rows, &row->key, row))
		return row;
	free(row);
	return NULL;
}

/* The name in names that rows of from go by: interned, a file's (path, not
 * an address) by its short name. NULL if memory ran out. */
static const char *row_name(struct report_state *st, struct hash_map *names, const char *from,
			    bool path)
{
	uint64_t key = (uintptr_t)from;
	struct row_name *n = hash_map_get(names, &key);
	const char *slash = path && from[0] != '[' ? strrchr(from, '/') : NULL;

	if (n)
		return n->name;
	n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	n->from = key;
	n->name = address_space_intern(&st->rec.as, slash ? slash + 1 : from);
	if (!n->name || hash_map_put(names, &n->from, n)) {
		free(n);
		return NULL;
	}
	return n->name;
}

/* The key of a sample's row, the frame's dso and symbol in it. An address
 * without a symbol is a row of its own, named as perf names it, "%#.16llx"
 * of shown: its leaf's self row by the address perf's map gives it (its
 * offset in the mapped file, or the ip), a caller's (--children) by the ip,
 * so one per process where ASLR moved it. kernel: the row's [k] or [.].
 * -ENOMEM if memory ran out. */
int report_frame_key(struct report_state *st, const struct row_key *base,
		     const struct resolved *where, uint64_t shown, bool kernel,
		     struct row_key *key)
{
	/* files and symbols as perf's sort keys compare them */
	const char *dso = (st->keys & (KEY(REPORT_KEY_DSO) | KEY(REPORT_KEY_SYM)))
				  ? row_name(st, &st->dso_names, where->dso, true) : NULL;

	*key = *base;
	if ((st->keys & (KEY(REPORT_KEY_DSO) | KEY(REPORT_KEY_SYM))) && !dso)
		return -ENOMEM;
	if (st->keys & KEY(REPORT_KEY_DSO))
		key->dso = dso;
	if (st->keys & KEY(REPORT_KEY_SYM)) {
		bool address = !strcmp(where->symbol, "[unknown]");
		char name[32], *inlined = NULL; /* a function inlined there: "NAME (inlined)" */

		key->sym = address ? where->symbol : row_name(st, &st->sym_names, where->symbol, false);
		if (!key->sym)
			return -ENOMEM;
		key->kernel = kernel;
		/* which symbol of its name, as perf's sort__sym_cmp (an address: none) */
		key->sym_dso = address || (st->keys & KEY(REPORT_KEY_DSO)) ? NULL : dso;
		key->sym_start = address ? 0 : where->symbol_start;
		if (where->inlined || address) {
			if (where->inlined && asprintf(&inlined, "%s (inlined)", where->symbol) < 0)
				return -ENOMEM;
			snprintf(name, sizeof(name), "%#.16" PRIx64, shown);
			key->sym = address_space_intern(&st->rec.as, inlined ? inlined : name);
			free(inlined);
			if (!key->sym)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Self to the leaf's row; with --children, the period to it and to every
 * other distinct row on the stack once, as perf's cumulative entries: the
 * REPORT_MAX_STACK frames perf's callchain cursor holds (the outermost
 * callers first, the innermost callees first), each row credited by its
 * first frame in that order; a frame in no mapping [k] or [.] as the frame
 * before it in that order (the sample's mode for the first). With -g, the leaf's row's tree gets
 * the whole stack, a credited row's the stack from its frame on.
 * kernel: the sample was taken in kernel mode. */
int report_add_to_table(struct report_state *st, const struct row_key *base, bool kernel,
			uint64_t period, uint64_t thread)
{
	const struct table_frame *f = st->table_frames;
	unsigned int nr = st->nr_frames < REPORT_MAX_STACK ? st->nr_frames : REPORT_MAX_STACK;
	unsigned int lo = st->callee_first ? 0 : st->nr_frames - nr; /* frames [lo, lo + nr) */
	const struct row_key *credited[REPORT_MAX_STACK];
	bool graph = st->o->graph.shown;
	struct resolved own = f[0].where;
	unsigned int n = 0;
	struct row *leaf;
	int r;

	if (own.inlined) /* self to the ip's symbol, not a function inlined there (perf's) */
		address_space_resolve(&st->rec.as, (uint32_t)(thread >> 32), f[0].ip,
				      PERF_RECORD_MISC_USER, &own);
	if (report_frame_key(st, base, &own, own.map_ip, own.mapped ? own.kernel : kernel, &st->leaf_key))
		return -ENOMEM;
	leaf = report_get_row(st, &st->leaf_key);
	if (!leaf)
		return -ENOMEM;
	if (!leaf->samples && !leaf->children)
		leaf->thread = thread;
	leaf->samples++;
	leaf->period += period;
	if (graph && nr > leaf->graph_depth)
		leaf->graph_depth = nr;
	for (unsigned int p = 0; graph && p < nr; p++) {
		const struct table_frame *at = &f[st->callee_first ? lo + p : lo + nr - 1 - p];

		call_graph_frame(at->ip, &at->where, &st->graph_frames[p]);
	}
	if (graph && (r = call_graph_add(&st->graph, &leaf->graph, st->graph_frames, nr, period)))
		return r;
	if (!st->o->children)
		return 0;
	leaf->children += period;
	for (unsigned int p = 0; p < nr; p++) {
		const struct table_frame *at = &f[st->callee_first ? lo + p : lo + nr - 1 - p];
		struct row_key *key = &st->frame_keys[p];
		bool seen;
		struct row *row;

		if (at->where.mapped)
			kernel = at->where.kernel;
		if (report_frame_key(st, base, &at->where, at->ip, kernel, key))
			return -ENOMEM;
		seen = report_row_equal(&st->leaf_key, key);
		for (unsigned int j = 0; j < n && !seen; j++)
			seen = report_row_equal(credited[j], key);
		if (seen)
			continue;
		credited[n++] = key;
		row = report_get_row(st, key);
		if (!row)
			return -ENOMEM;
		if (!row->samples && !row->children)
			row->thread = thread;
		row->children += period;
		if (graph && nr - p > row->graph_depth)
			row->graph_depth = nr - p;
		if (graph && (r = call_graph_add(&st->graph, &row->graph, st->graph_frames + p,
						 nr - p, period)))
			return r;
	}
	return 0;
}
