/* SPDX-License-Identifier: GPL-2.0-only */
/* symbol_tree.h: the red-black tree perf keeps a DSO's symbols in, shaped as the
 * kernel's lib/rbtree.c shapes it, so that lookups among overlaps find what perf's find. */
#ifndef RINGTRACE_SYMBOL_TREE_H
#define RINGTRACE_SYMBOL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TREE_NONE UINT32_MAX

/* Nodes are numbers (0, 1, ...); links are node numbers or TREE_NONE. */
struct symbol_tree {
	uint32_t *left, *right, *parent;
	bool *red;
	uint32_t root;
	size_t cap;
};

void symbol_tree_init(struct symbol_tree *t);
/* Room for nodes 0..n-1; -ENOMEM if memory ran out. */
int symbol_tree_reserve(struct symbol_tree *t, size_t n);
/* Inserts node as perf's __symbols__insert does: down from the root, left
 * where keys[node] < the key there, else right; then rb_insert_color. */
void symbol_tree_insert(struct symbol_tree *t, uint32_t node, const uint64_t *keys);
/* Removes node as rb_erase does. */
void symbol_tree_erase(struct symbol_tree *t, uint32_t node);
void symbol_tree_free(struct symbol_tree *t);

#endif
