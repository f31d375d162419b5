/* SPDX-License-Identifier: GPL-2.0-only */
/* call_graph.h: report -g's call graphs: the stacks of each row added up in
 * a tree of functions, as perf report adds up its callchains, and printed
 * under the row as perf report --stdio -g graph prints them. */
#ifndef RINGTRACE_CALL_GRAPH_H
#define RINGTRACE_CALL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/hash_map.h"
#include "symbols/address_space.h"

/* The most nodes (one per function of a path from a row's root) the trees of
 * all the rows hold together, about 130 bytes each with their index: a
 * recording that needs more is narrowed with filters (--comm, --pid, --time). */
#define CALL_GRAPH_MAX_NODES (1u << 21)

/* A frame as perf's match_chain (sort key "function") tells frames apart: a
 * function by its file and start, an inlined one by its name, an address
 * without a symbol by its file and itself. */
struct graph_frame {
	const char *name; /* interned; NULL: an address without a symbol */
	const char *dso;  /* interned */
	uint64_t start;   /* the function's, in its file */
	uint64_t ip;      /* the frame's address, shown when there is no name */
	bool inlined;     /* shown "NAME (inlined)" */
};

/* The frame at ip as a tree tells it apart. */
void call_graph_frame(uint64_t ip, const struct resolved *where, struct graph_frame *f);

struct graph_key {
	const struct graph_node *parent;
	const char *name;
	const char *dso;  /* NULL for an inlined function */
	uint64_t at;      /* a function's start, an address itself; 0 when inlined */
};

struct graph_node {
	struct graph_key key;
	bool inlined;
	bool is_end;                 /* a stack ends here (perf's node boundary) */
	uint32_t nr_children;
	uint64_t ip;                 /* of the first frame added here */
	uint64_t hit;                /* period of the stacks that end here */
	uint64_t cumul;              /* period of the stacks through here, hit included */
	struct graph_node *first_child, *next_sibling;
};

struct graph_node_block;

/* Every row's tree: nodes by their parent and frame, allocated in blocks. */
struct call_graph {
	struct hash_map nodes;
	struct graph_node_block *blocks;
	size_t nr_nodes;
};

void call_graph_init(struct call_graph *g);
void call_graph_free(struct call_graph *g);

/* Adds a stack of nr frames, from the one under the root on, weighing
 * period, to the tree at *root (made on the first stack). 0, -ENOMEM, or
 * -E2BIG past CALL_GRAPH_MAX_NODES. */
int call_graph_add(struct call_graph *g, struct graph_node **root,
		   const struct graph_frame *frames, unsigned int nr, uint64_t period);

/* How a row's tree is printed. */
struct graph_print {
	uint64_t total;        /* the event's period: percentages are of it */
	uint64_t row_period;   /* the row's (its Children with --children) */
	uint64_t min_period;   /* a branch under it is left out */
	unsigned int print_limit; /* the most branches of a level, 0: all */
	bool skip_first;       /* the row is its sort's symbol: a lone chain's
				* first function is left out (perf's --sort sym) */
};

/* Prints the tree under its row as perf's callchain__fprintf_graph (graph,
 * absolute percentages), a blank line after it when it printed anything.
 * root may be NULL (no stack). 0, or -ENOMEM. */
int call_graph_print(const struct graph_node *root, const struct graph_print *p, FILE *out);

#endif
