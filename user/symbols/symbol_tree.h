/* SPDX-License-Identifier: GPL-2.0-only */
/* symbol_tree.h: the red-black tree perf keeps a DSO's symbols in, shaped as the
 * kernel's lib/rbtree.c shapes it, so that lookups among overlaps find what perf's find. */
#ifndef RINGTRACE_SYMBOL_TREE_H
#define RINGTRACE_SYMBOL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREE_NONE UINT32_MAX

/* Nodes are numbers (0, 1, ...); links are node numbers or TREE_NONE. A
 * node's key and links share a cache line: a step down the tree is one
 * line, not three (inserting a file's symbols was 11% of a report). */
struct symbol_tree_node {
	uint64_t key;
	uint32_t left, right, parent;
	bool red;
};

struct symbol_tree {
	struct symbol_tree_node *nodes;
	uint32_t root;
	size_t cap;
};

void symbol_tree_init(struct symbol_tree *t);
/* Room for nodes 0..n-1; -ENOMEM if memory ran out. */
int symbol_tree_reserve(struct symbol_tree *t, size_t n);
/* Inserts node, of key, as perf's __symbols__insert does: down from the
 * root, left where key < the key there, else right; then rb_insert_color. */
void symbol_tree_insert(struct symbol_tree *t, uint32_t node, uint64_t key);
/* Removes node as rb_erase does. */
void symbol_tree_erase(struct symbol_tree *t, uint32_t node);
void symbol_tree_free(struct symbol_tree *t);

#endif
