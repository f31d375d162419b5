/* SPDX-License-Identifier: GPL-2.0-only */
/* call_graph.c: report -g's call graphs: the stacks of each row added up in
 * a tree of functions, as perf report adds up its callchains, and printed
 * under the row as perf report --stdio -g graph prints them. */
#include "report/call_graph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/terminal_text.h"

#define BLOCK_NODES 1024

struct graph_node_block {
	struct graph_node_block *next;
	unsigned int used;
	struct graph_node nodes[BLOCK_NODES];
};

/* perf's left margin of every line of a tree, and its columns. */
#define GRAPH_MARGIN 12
#define GRAPH_COLUMN "          " /* 10 spaces: a level's width after its '|' */

static uint64_t hash_key(const void *k)
{
	const struct graph_key *key = k;
	const uint64_t m = 0x9e3779b97f4a7c15ULL;

	return hash_u64((((uintptr_t)key->parent * m + (uintptr_t)key->name) * m +
			 (uintptr_t)key->dso) * m + key->at);
}

static bool equal_key(const void *a, const void *b)
{
	const struct graph_key *x = a, *y = b;

	return x->parent == y->parent && x->name == y->name && x->dso == y->dso && x->at == y->at;
}

void call_graph_init(struct call_graph *g)
{
	memset(g, 0, sizeof(*g));
	hash_map_init(&g->nodes, hash_key, equal_key);
}

void call_graph_free(struct call_graph *g)
{
	while (g->blocks) {
		struct graph_node_block *b = g->blocks;

		g->blocks = b->next;
		free(b);
	}
	hash_map_free(&g->nodes);
	g->nr_nodes = 0;
}

static struct graph_node *new_node(struct call_graph *g, int *err)
{
	struct graph_node_block *b = g->blocks;

	if (g->nr_nodes >= CALL_GRAPH_MAX_NODES) {
		*err = -E2BIG;
		return NULL;
	}
	if (!b || b->used == BLOCK_NODES) {
		b = malloc(sizeof(*b));
		if (!b) {
			*err = -ENOMEM;
			return NULL;
		}
		b->next = g->blocks;
		b->used = 0;
		g->blocks = b;
	}
	g->nr_nodes++;
	memset(&b->nodes[b->used], 0, sizeof(b->nodes[0]));
	return &b->nodes[b->used++];
}

void call_graph_frame(uint64_t ip, const struct resolved *where, struct graph_frame *f)
{
	bool named = strcmp(where->symbol, "[unknown]") != 0;

	*f = (struct graph_frame){ .name = named ? where->symbol : NULL, .dso = where->dso,
				   .start = where->symbol_start, .ip = ip,
				   .inlined = where->inlined };
}

/* The child of parent for frame f, made if new. */
static struct graph_node *child_of(struct call_graph *g, struct graph_node *parent,
				   const struct graph_frame *f, int *err)
{
	struct graph_key key = { .parent = parent, .name = f->name };
	struct graph_node *n;

	if (!f->name) {
		key.dso = f->dso;
		key.at = f->ip;
	} else if (!f->inlined) {
		key.dso = f->dso;
		key.at = f->start;
	}
	n = hash_map_get(&g->nodes, &key);
	if (n)
		return n;
	n = new_node(g, err);
	if (!n)
		return NULL;
	n->key = key;
	n->inlined = f->inlined;
	n->ip = f->ip;
	if (hash_map_put(&g->nodes, &n->key, n)) {
		*err = -ENOMEM;
		return NULL; /* left in its block, unlinked: freed with it */
	}
	n->next_sibling = parent->first_child;
	parent->first_child = n;
	parent->nr_children++;
	return n;
}

int call_graph_add(struct call_graph *g, struct graph_node **root,
		   const struct graph_frame *frames, unsigned int nr, uint64_t period)
{
	struct graph_node *n;
	int err = 0;

	if (!nr)
		return 0; /* perf's callchain_append: an empty stack adds nothing */
	if (!*root && !(*root = new_node(g, &err)))
		return err;
	n = *root;
	n->cumul += period;
	for (unsigned int i = 0; i < nr; i++) {
		n = child_of(g, n, &frames[i], &err);
		if (!n)
			return err;
		n->cumul += period;
	}
	n->hit += period;
	n->is_end = true;
	return 0;
}

/* A run of nodes perf holds as one callchain node: from n, on while a node
 * ends no stack and has one child. Its last node. */
static const struct graph_node *run_last(const struct graph_node *n)
{
	while (!n->is_end && n->nr_children == 1)
		n = n->first_child;
	return n;
}

static const struct graph_node *run_next(const struct graph_node *n)
{
	return !n->is_end && n->nr_children == 1 ? n->first_child : NULL;
}

static int compare_u64_down(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int compare_names_down(const char *a, const char *b)
{
	int c = strcmp(a ? a : "", b ? b : "");

	return c > 0 ? -1 : c < 0;
}

/* Whether dso is the kernel's, which perf allocates before any other (at
 * the session's start). */
static bool kernel_dso(const char *dso)
{
	return dso && !strncmp(dso, "[kernel", 7);
}

/* Siblings as perf prints them: by period, heaviest first; ties in the
 * order of perf's tree of children (match_chain's, descending): names of
 * inlined functions, else file and start (or address). perf orders files
 * by where it allocated them: the kernel's first, so last here (seen
 * beside load: a kernel branch and a program's of one weight, perf's
 * program first); the others here by name. */
static int compare_siblings(const void *a, const void *b)
{
	const struct graph_node *x = *(const struct graph_node *const *)a;
	const struct graph_node *y = *(const struct graph_node *const *)b;
	int c = compare_u64_down(x->cumul, y->cumul);

	if (c)
		return c;
	if (x->key.name && y->key.name && (x->inlined || y->inlined))
		return compare_names_down(x->key.name, y->key.name);
	if (kernel_dso(x->key.dso) != kernel_dso(y->key.dso))
		return kernel_dso(x->key.dso) ? 1 : -1;
	if ((c = compare_names_down(x->key.dso, y->key.dso)))
		return c;
	if (x->key.name && y->key.name)
		return compare_u64_down(x->key.at, y->key.at);
	return compare_u64_down(x->ip, y->ip);
}

/* The children of n that weigh at least the threshold, sorted: a new
 * array (*nr of them), or NULL with *nr 0 if none; -ENOMEM in *err. */
static const struct graph_node **shown_children(const struct graph_node *n, uint64_t min_period,
						size_t *nr, int *err)
{
	const struct graph_node **kids;
	size_t k = 0;

	*nr = 0;
	if (!n->nr_children)
		return NULL;
	kids = malloc(n->nr_children * sizeof(*kids));
	if (!kids) {
		*err = -ENOMEM;
		return NULL;
	}
	for (const struct graph_node *c = n->first_child; c; c = c->next_sibling)
		if (c->cumul >= min_period)
			kids[k++] = c;
	qsort(kids, k, sizeof(*kids), compare_siblings);
	*nr = k;
	return kids;
}

/* perf's depth mask is an int shifted by the depth: on x86 the shift
 * counts modulo 32, which perf's deeper trees show. */
static uint32_t level_bit(int level)
{
	return 1u << (level & 31);
}

static void print_name(const struct graph_node *n, FILE *out)
{
	/* a name cut at 1023 bytes, as perf's callchain_list__sym_name cuts
	 * it (the table's rows print it whole, as perf's do) */
	char buf[1024], escaped[1024];

	if (!n->key.name)
		snprintf(buf, sizeof(buf), "%#" PRIx64, n->ip);
	else
		snprintf(buf, sizeof(buf), "%s%s", n->key.name, n->inlined ? " (inlined)" : "");
	fputs(terminal_text(buf, escaped, sizeof(escaped)), out);
	fputc('\n', out);
}

static double percent_of(uint64_t part, uint64_t total)
{
	return total ? (double)part * 100.0 / (double)total : 0.0;
}

/* perf's ipchain__fprintf_graph_line: the line before a branch. */
static void print_branch_gap(FILE *out, int depth, uint32_t mask, int margin)
{
	fprintf(out, "%*s", GRAPH_MARGIN + margin, "");
	for (int i = 0; i < depth; i++)
		fputs(mask & level_bit(i) ? "|" GRAPH_COLUMN : " " GRAPH_COLUMN, out);
	fputc('\n', out);
}

/* perf's ipchain__fprintf_graph: a function of a branch, the first one
 * with the branch's percentage. */
static void print_entry(FILE *out, const struct graph_node *branch, const struct graph_node *n,
			int depth, uint32_t mask, uint64_t total, int margin)
{
	fprintf(out, "%*s", GRAPH_MARGIN + margin, "");
	for (int i = 0; i < depth; i++) {
		fputc(mask & level_bit(i) ? '|' : ' ', out);
		if (n == branch && i == depth - 1)
			fprintf(out, "--%.2f%%--", percent_of(branch->cumul, total));
		else
			fputs(GRAPH_COLUMN, out);
	}
	print_name(n, out);
}

/* perf's __callchain__fprintf_graph (graph: absolute percentages): the
 * branches under n, each's functions, then its own branches. depth is at
 * most the stack's length (REPORT_MAX_STACK). Whether it printed, in
 * *printed. */
static int print_branches(FILE *out, const struct graph_node *n, const struct graph_print *p,
			  int depth, uint32_t mask, int margin, bool *printed)
{
	size_t nr = 0;
	int err = 0;
	const struct graph_node **kids = shown_children(n, p->min_period, &nr, &err);
	uint32_t new_mask = mask;

	for (size_t k = 0; k < nr && !err; k++) {
		const struct graph_node *e;

		if (k + 1 == nr)
			new_mask &= ~level_bit(depth - 1);
		print_branch_gap(out, depth, mask, margin);
		for (e = kids[k]; e; e = run_next(e))
			print_entry(out, kids[k], e, depth, new_mask, p->total, margin);
		*printed = true;
		err = print_branches(out, run_last(kids[k]), p, depth + 1,
				     new_mask | level_bit(depth), margin, printed);
		if (k + 1 == p->print_limit)
			break;
	}
	free(kids);
	return err;
}

int call_graph_print(const struct graph_node *root, const struct graph_print *p, FILE *out)
{
	const struct graph_node *start = root;
	bool printed = false;
	size_t nr = 0;
	int margin = 0, err = 0;
	const struct graph_node **kids;

	if (!root)
		return 0;
	kids = shown_children(root, p->min_period, &nr, &err);
	if (err)
		return err;
	/* one chain of the row's whole weight: its functions without a
	 * percentage, under "---" (perf's need_percent_display) */
	if (nr == 1 && kids[0]->cumul == p->row_period) {
		unsigned int i = 0, shown = 0;

		for (const struct graph_node *e = kids[0]; e; e = run_next(e)) {
			if (!i++ && p->skip_first)
				continue;
			if (!printed) {
				fprintf(out, "%*s|\n%*s---", GRAPH_MARGIN, "", GRAPH_MARGIN, "");
				margin += 3;
				printed = true;
			} else {
				fprintf(out, "%*s", GRAPH_MARGIN + margin, "");
			}
			print_name(e, out);
			if (++shown == p->print_limit)
				break;
		}
		start = run_last(kids[0]);
	}
	free(kids);
	err = print_branches(out, start, p, 1, 1, margin, &printed);
	if (printed)
		fputc('\n', out);
	return err;
}
