/* SPDX-License-Identifier: GPL-2.0-only */
/* symbol_tree.c: the red-black tree perf keeps a DSO's symbols in, shaped as the
 * kernel's lib/rbtree.c shapes it, so that lookups among overlaps find what perf's find. */
#include "symbols/symbol_tree.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void symbol_tree_init(struct symbol_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->root = TREE_NONE;
}

int symbol_tree_reserve(struct symbol_tree *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 1024;
	struct symbol_tree_node *nodes;

	if (n <= t->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	nodes = realloc(t->nodes, cap * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	t->nodes = nodes;
	t->cap = cap;
	return 0;
}

void symbol_tree_free(struct symbol_tree *t)
{
	free(t->nodes);
	symbol_tree_init(t);
}

/* parent's link to old now leads to new (the root's if parent is none). */
static void relink(struct symbol_tree *t, uint32_t parent, uint32_t old, uint32_t new)
{
	if (parent == TREE_NONE)
		t->root = new;
	else if (t->nodes[parent].left == old)
		t->nodes[parent].left = new;
	else
		t->nodes[parent].right = new;
}

static void set_parent(struct symbol_tree *t, uint32_t node, uint32_t parent)
{
	if (node != TREE_NONE)
		t->nodes[node].parent = parent;
}

static bool is_red(const struct symbol_tree *t, uint32_t node)
{
	return node != TREE_NONE && t->nodes[node].red;
}

/* x's right child takes x's place, x becomes its left child. */
static void rotate_left(struct symbol_tree *t, uint32_t x)
{
	uint32_t y = t->nodes[x].right;

	t->nodes[x].right = t->nodes[y].left;
	set_parent(t, t->nodes[y].left, x);
	t->nodes[y].parent = t->nodes[x].parent;
	relink(t, t->nodes[x].parent, x, y);
	t->nodes[y].left = x;
	t->nodes[x].parent = y;
}

/* x's left child takes x's place, x becomes its right child. */
static void rotate_right(struct symbol_tree *t, uint32_t x)
{
	uint32_t y = t->nodes[x].left;

	t->nodes[x].left = t->nodes[y].right;
	set_parent(t, t->nodes[y].right, x);
	t->nodes[y].parent = t->nodes[x].parent;
	relink(t, t->nodes[x].parent, x, y);
	t->nodes[y].right = x;
	t->nodes[x].parent = y;
}

/* rb_insert_color: node is red; no red node may have a red parent. */
static void insert_fixup(struct symbol_tree *t, uint32_t node)
{
	for (;;) {
		uint32_t parent = t->nodes[node].parent, gparent, uncle;
		bool left;

		if (parent == TREE_NONE) {
			t->nodes[node].red = false;
			return;
		}
		if (!t->nodes[parent].red)
			return;
		gparent = t->nodes[parent].parent;
		left = t->nodes[gparent].left == parent;
		uncle = left ? t->nodes[gparent].right : t->nodes[gparent].left;
		if (is_red(t, uncle)) { /* flip colours, go on two levels up */
			t->nodes[uncle].red = t->nodes[parent].red = false;
			t->nodes[gparent].red = true;
			node = gparent;
			continue;
		}
		if (left && node == t->nodes[parent].right) { /* bend: straighten it */
			rotate_left(t, parent);
			parent = node;
		} else if (!left && node == t->nodes[parent].left) {
			rotate_right(t, parent);
			parent = node;
		}
		if (left)
			rotate_right(t, gparent);
		else
			rotate_left(t, gparent);
		t->nodes[parent].red = false;
		t->nodes[gparent].red = true;
		return;
	}
}

void symbol_tree_insert(struct symbol_tree *t, uint32_t node, uint64_t key)
{
	uint32_t parent = TREE_NONE, at = t->root;
	bool left = false;

	while (at != TREE_NONE) {
		parent = at;
		left = key < t->nodes[at].key;
		at = left ? t->nodes[at].left : t->nodes[at].right;
	}
	t->nodes[node] = (struct symbol_tree_node){ key, TREE_NONE, TREE_NONE, parent, true };
	if (parent == TREE_NONE)
		t->root = node;
	else if (left)
		t->nodes[parent].left = node;
	else
		t->nodes[parent].right = node;
	insert_fixup(t, node);
}

/* rb_erase's colour fixup: the paths through parent's child that lost a
 * black node (none at first: the one removed) are one black node short. */
static void erase_fixup(struct symbol_tree *t, uint32_t parent)
{
	uint32_t node = TREE_NONE;

	for (;;) {
		bool left = t->nodes[parent].left == node;
		uint32_t sibling = left ? t->nodes[parent].right : t->nodes[parent].left, near, far;

		if (t->nodes[sibling].red) { /* make the sibling black */
			if (left)
				rotate_left(t, parent);
			else
				rotate_right(t, parent);
			t->nodes[sibling].red = false;
			t->nodes[parent].red = true;
			sibling = left ? t->nodes[parent].right : t->nodes[parent].left;
		}
		near = left ? t->nodes[sibling].left : t->nodes[sibling].right;
		far = left ? t->nodes[sibling].right : t->nodes[sibling].left;
		if (!is_red(t, far) && !is_red(t, near)) {
			t->nodes[sibling].red = true;
			if (t->nodes[parent].red) {
				t->nodes[parent].red = false;
				return;
			}
			node = parent;
			parent = t->nodes[node].parent;
			if (parent == TREE_NONE)
				return;
			continue;
		}
		if (!is_red(t, far)) { /* the near child red: turn it to the far side */
			if (left)
				rotate_right(t, sibling);
			else
				rotate_left(t, sibling);
			t->nodes[near].red = false;
			t->nodes[sibling].red = true;
			sibling = near;
			far = left ? t->nodes[sibling].right : t->nodes[sibling].left;
		}
		if (left)
			rotate_left(t, parent);
		else
			rotate_right(t, parent);
		t->nodes[sibling].red = t->nodes[parent].red;
		t->nodes[parent].red = false;
		t->nodes[far].red = false;
		return;
	}
}

void symbol_tree_erase(struct symbol_tree *t, uint32_t node)
{
	uint32_t child = t->nodes[node].right, left = t->nodes[node].left;
	uint32_t parent = t->nodes[node].parent, rebalance = TREE_NONE;

	if (left == TREE_NONE) {
		relink(t, parent, node, child);
		if (child != TREE_NONE) {
			t->nodes[child].parent = parent;
			t->nodes[child].red = t->nodes[node].red;
		} else if (!t->nodes[node].red) {
			rebalance = parent;
		}
	} else if (child == TREE_NONE) {
		relink(t, parent, node, left);
		t->nodes[left].parent = parent;
		t->nodes[left].red = t->nodes[node].red;
	} else {
		/* the successor, the leftmost node on the right, takes its place */
		uint32_t successor = child, sparent = child, child2;
		bool successor_red;

		if (t->nodes[child].left == TREE_NONE) {
			sparent = successor;
			child2 = t->nodes[successor].right;
		} else {
			while (t->nodes[successor].left != TREE_NONE) {
				sparent = successor;
				successor = t->nodes[successor].left;
			}
			child2 = t->nodes[successor].right;
			t->nodes[sparent].left = child2;
			t->nodes[successor].right = child;
			t->nodes[child].parent = successor;
		}
		t->nodes[successor].left = left;
		t->nodes[left].parent = successor;
		relink(t, parent, node, successor);
		successor_red = t->nodes[successor].red;
		t->nodes[successor].parent = parent;
		t->nodes[successor].red = t->nodes[node].red;
		if (child2 != TREE_NONE) {
			t->nodes[child2].parent = sparent;
			t->nodes[child2].red = false;
		} else if (!successor_red) {
			rebalance = sparent;
		}
	}
	if (rebalance != TREE_NONE)
		erase_fixup(t, rebalance);
}
