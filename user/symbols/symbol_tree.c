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
	uint32_t *l, *r, *p;
	bool *red;

	if (n <= t->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	l = realloc(t->left, cap * sizeof(*l));
	if (l)
		t->left = l;
	r = realloc(t->right, cap * sizeof(*r));
	if (r)
		t->right = r;
	p = realloc(t->parent, cap * sizeof(*p));
	if (p)
		t->parent = p;
	red = realloc(t->red, cap * sizeof(*red));
	if (red)
		t->red = red;
	if (!l || !r || !p || !red)
		return -ENOMEM;
	t->cap = cap;
	return 0;
}

void symbol_tree_free(struct symbol_tree *t)
{
	free(t->left);
	free(t->right);
	free(t->parent);
	free(t->red);
	symbol_tree_init(t);
}

/* parent's link to old now leads to new (the root's if parent is none). */
static void relink(struct symbol_tree *t, uint32_t parent, uint32_t old, uint32_t new)
{
	if (parent == TREE_NONE)
		t->root = new;
	else if (t->left[parent] == old)
		t->left[parent] = new;
	else
		t->right[parent] = new;
}

static void set_parent(struct symbol_tree *t, uint32_t node, uint32_t parent)
{
	if (node != TREE_NONE)
		t->parent[node] = parent;
}

static bool is_red(const struct symbol_tree *t, uint32_t node)
{
	return node != TREE_NONE && t->red[node];
}

/* x's right child takes x's place, x becomes its left child. */
static void rotate_left(struct symbol_tree *t, uint32_t x)
{
	uint32_t y = t->right[x];

	t->right[x] = t->left[y];
	set_parent(t, t->left[y], x);
	t->parent[y] = t->parent[x];
	relink(t, t->parent[x], x, y);
	t->left[y] = x;
	t->parent[x] = y;
}

/* x's left child takes x's place, x becomes its right child. */
static void rotate_right(struct symbol_tree *t, uint32_t x)
{
	uint32_t y = t->left[x];

	t->left[x] = t->right[y];
	set_parent(t, t->right[y], x);
	t->parent[y] = t->parent[x];
	relink(t, t->parent[x], x, y);
	t->right[y] = x;
	t->parent[x] = y;
}

/* rb_insert_color: node is red; no red node may have a red parent. */
static void insert_fixup(struct symbol_tree *t, uint32_t node)
{
	for (;;) {
		uint32_t parent = t->parent[node], gparent, uncle;
		bool left;

		if (parent == TREE_NONE) {
			t->red[node] = false;
			return;
		}
		if (!t->red[parent])
			return;
		gparent = t->parent[parent];
		left = t->left[gparent] == parent;
		uncle = left ? t->right[gparent] : t->left[gparent];
		if (is_red(t, uncle)) { /* flip colours, go on two levels up */
			t->red[uncle] = t->red[parent] = false;
			t->red[gparent] = true;
			node = gparent;
			continue;
		}
		if (left && node == t->right[parent]) { /* bend: straighten it */
			rotate_left(t, parent);
			parent = node;
		} else if (!left && node == t->left[parent]) {
			rotate_right(t, parent);
			parent = node;
		}
		if (left)
			rotate_right(t, gparent);
		else
			rotate_left(t, gparent);
		t->red[parent] = false;
		t->red[gparent] = true;
		return;
	}
}

void symbol_tree_insert(struct symbol_tree *t, uint32_t node, const uint64_t *keys)
{
	uint32_t parent = TREE_NONE, at = t->root;
	bool left = false;

	while (at != TREE_NONE) {
		parent = at;
		left = keys[node] < keys[at];
		at = left ? t->left[at] : t->right[at];
	}
	t->left[node] = t->right[node] = TREE_NONE;
	t->parent[node] = parent;
	t->red[node] = true;
	if (parent == TREE_NONE)
		t->root = node;
	else if (left)
		t->left[parent] = node;
	else
		t->right[parent] = node;
	insert_fixup(t, node);
}

/* rb_erase's colour fixup: the paths through parent's child that lost a
 * black node (none at first: the one removed) are one black node short. */
static void erase_fixup(struct symbol_tree *t, uint32_t parent)
{
	uint32_t node = TREE_NONE;

	for (;;) {
		bool left = t->left[parent] == node;
		uint32_t sibling = left ? t->right[parent] : t->left[parent], near, far;

		if (t->red[sibling]) { /* make the sibling black */
			if (left)
				rotate_left(t, parent);
			else
				rotate_right(t, parent);
			t->red[sibling] = false;
			t->red[parent] = true;
			sibling = left ? t->right[parent] : t->left[parent];
		}
		near = left ? t->left[sibling] : t->right[sibling];
		far = left ? t->right[sibling] : t->left[sibling];
		if (!is_red(t, far) && !is_red(t, near)) {
			t->red[sibling] = true;
			if (t->red[parent]) {
				t->red[parent] = false;
				return;
			}
			node = parent;
			parent = t->parent[node];
			if (parent == TREE_NONE)
				return;
			continue;
		}
		if (!is_red(t, far)) { /* the near child red: turn it to the far side */
			if (left)
				rotate_right(t, sibling);
			else
				rotate_left(t, sibling);
			t->red[near] = false;
			t->red[sibling] = true;
			sibling = near;
			far = left ? t->right[sibling] : t->left[sibling];
		}
		if (left)
			rotate_left(t, parent);
		else
			rotate_right(t, parent);
		t->red[sibling] = t->red[parent];
		t->red[parent] = false;
		t->red[far] = false;
		return;
	}
}

void symbol_tree_erase(struct symbol_tree *t, uint32_t node)
{
	uint32_t child = t->right[node], left = t->left[node];
	uint32_t parent = t->parent[node], rebalance = TREE_NONE;

	if (left == TREE_NONE) {
		relink(t, parent, node, child);
		if (child != TREE_NONE) {
			t->parent[child] = parent;
			t->red[child] = t->red[node];
		} else if (!t->red[node]) {
			rebalance = parent;
		}
	} else if (child == TREE_NONE) {
		relink(t, parent, node, left);
		t->parent[left] = parent;
		t->red[left] = t->red[node];
	} else {
		/* the successor, the leftmost node on the right, takes its place */
		uint32_t successor = child, sparent = child, child2;
		bool successor_red;

		if (t->left[child] == TREE_NONE) {
			sparent = successor;
			child2 = t->right[successor];
		} else {
			while (t->left[successor] != TREE_NONE) {
				sparent = successor;
				successor = t->left[successor];
			}
			child2 = t->right[successor];
			t->left[sparent] = child2;
			t->right[successor] = child;
			t->parent[child] = successor;
		}
		t->left[successor] = left;
		t->parent[left] = successor;
		relink(t, parent, node, successor);
		successor_red = t->red[successor];
		t->parent[successor] = parent;
		t->red[successor] = t->red[node];
		if (child2 != TREE_NONE) {
			t->parent[child2] = sparent;
			t->red[child2] = false;
		} else if (!successor_red) {
			rebalance = sparent;
		}
	}
	if (rebalance != TREE_NONE)
		erase_fixup(t, rebalance);
}
