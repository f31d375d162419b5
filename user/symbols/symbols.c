/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.c: symbol tables built as perf 6.1 builds them (end fixups, one
 * symbol per address by perf's rules), and lookup by address. */
#include "symbols/symbols.h"

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "lib/prefault.h"
#include "lib/sorted_count.h"
#include "symbols/demangle.h"
#include "symbols/kallsyms_disk.h"
#include "symbols/symtab_cache.h"

#define PAGE 4096ULL

struct builder_symbol {
	struct symbol sym; /* name: an offset into the builder's names until finished */
	uint32_t order;    /* the order it was added in: perf's among equal addresses */
	/* kallsyms: the name holds a '[' (fixup_ends' test of a module's
	 * symbol), a tab (the keep's): known when added, not looked for again
	 * in 3 MB of names gone cold */
	bool bracket, tab;
};

void symtab_builder_init(struct symtab_builder *b, bool kallsyms)
{
	memset(b, 0, sizeof(*b));
	b->kallsyms = kallsyms;
	symbol_tree_init(&b->tree);
}

static int add_symbol(struct symtab_builder *b, uint64_t start, uint64_t size, uint8_t binding,
		      uint8_t type, const char *name, bool mangled)
{
	size_t name_len = strlen(name), len = name_len + 1;
	size_t at = b->names.len;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct builder_symbol *grown = realloc(b->syms, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		prefault(grown + b->nr, (cap - b->nr) * sizeof(*grown));
		b->syms = grown;
		b->cap = cap;
	}
	if (b->added == TREE_NONE || !byte_buffer_append(&b->names, name, len))
		return b->added == TREE_NONE ? -E2BIG : -ENOMEM;
	/* perf inserts it into its tree at once: kept for a tree built at the end */
	if (!b->kallsyms && !byte_buffer_append(&b->keys, &start, sizeof(start))) {
		b->names.len = at;
		return -ENOMEM;
	}
	/* as symbol__new: a size makes the end, none leaves end == start */
	b->syms[b->nr++] = (struct builder_symbol){
		.sym = { start, size && start + size > start ? start + size : start,
			 (const char *)(uintptr_t)at, binding, type, mangled },
		.order = b->added++,
		.bracket = b->kallsyms && memchr(name, '[', name_len),
		.tab = b->kallsyms && memchr(name, '\t', name_len),
	};
	return 0;
}

int symtab_builder_add(struct symtab_builder *b, uint64_t start, uint64_t size, uint8_t binding,
		       uint8_t type, const char *name)
{
	return add_symbol(b, start, size, binding, type, name, false);
}

int symtab_builder_add_demangled(struct symtab_builder *b, uint64_t start, uint64_t size,
				 uint8_t binding, uint8_t type, const char *name)
{
	bool mangled = demangle_candidate(name);

	b->any_mangled |= mangled;
	return add_symbol(b, start, size, binding, type, name, mangled);
}

static int compare_added(const void *a, const void *b)
{
	const struct builder_symbol *x = a, *y = b;

	if (x->sym.start != y->sym.start)
		return x->sym.start < y->sym.start ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

int symbol_choose_best(const struct symbol *a, const struct symbol *b)
{
	uint64_t sa = a->end - a->start, sb = b->end - b->start;
	size_t ua, ub, la, lb;

	if (sa && !sb)
		return 0;
	if (!sa && sb)
		return 1;
	if ((a->binding == STB_WEAK) != (b->binding == STB_WEAK))
		return a->binding == STB_WEAK;
	if ((a->binding == STB_GLOBAL) != (b->binding == STB_GLOBAL))
		return b->binding == STB_GLOBAL;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua > ub;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb;
	/* arch__choose_best_symbol: no "SyS" kernel syscall aliases */
	return !strncmp(a->name, "SyS", 3) || !strncmp(a->name, "compat_SyS", 10);
}

static uint64_t page_up(uint64_t x)
{
	return x > UINT64_MAX - (PAGE - 1) ? UINT64_MAX : (x + PAGE - 1) & ~(PAGE - 1);
}

static uint64_t add_page(uint64_t x)
{
	return x > UINT64_MAX - PAGE ? UINT64_MAX : x + PAGE;
}

static const char *name_of(const struct symtab_builder *b, const struct builder_symbol *s)
{
	return (const char *)b->names.data + (uintptr_t)s->sym.name;
}

/* symbols__fixup_end: a zero-sized symbol ends where the next one starts
 * (in kallsyms, one page on where the kernel's end and a module's begin, or
 * the reverse: a module's names end in "\t[MODULE]"); the last one a page
 * past the page it starts in. */
static void fixup_ends(struct symtab_builder *b)
{
	for (size_t i = 0; i + 1 < b->nr; i++) {
		struct builder_symbol *s = &b->syms[i];

		if (s->sym.end != s->sym.start)
			continue;
		if (b->kallsyms && s->bracket != b->syms[i + 1].bracket)
			s->sym.end = page_up(add_page(s->sym.end));
		else
			s->sym.end = b->syms[i + 1].sym.start;
	}
	if (b->nr && b->syms[b->nr - 1].sym.end == b->syms[b->nr - 1].sym.start)
		b->syms[b->nr - 1].sym.end = add_page(page_up(b->syms[b->nr - 1].sym.start));
}

/* perf's choice between two symbols at one address, by the names perf's
 * symbols hold: demangled. */
static bool choose_second(const struct symtab_builder *b, const struct builder_symbol *x,
			  const struct builder_symbol *y)
{
	struct symbol a = x->sym, c = y->sym;
	char *da = x->sym.mangled ? demangle(name_of(b, x)) : NULL;
	char *dc = y->sym.mangled ? demangle(name_of(b, y)) : NULL;
	bool second;

	a.name = da ? da : name_of(b, x);
	c.name = dc ? dc : name_of(b, y);
	second = symbol_choose_best(&a, &c) == 1;
	free(da);
	free(dc);
	return second;
}

/* An erase from perf's tree: of node order, once added symbols were in it. */
struct tree_erase {
	uint32_t added, order;
};

/* Notes perf's erase of s from its tree; false if memory ran out. */
static bool drop(struct symtab_builder *b, const struct builder_symbol *s)
{
	struct tree_erase e = { b->added, s->order };

	return b->kallsyms || byte_buffer_append(&b->erases, &e, sizeof(e));
}

/* symbols__fixup_duplicate: of the symbols at one address, the best one by
 * symbol_choose_best, taken in order; the others leave perf's tree in the
 * order perf erases them. */
static int fixup_duplicates(struct symtab_builder *b)
{
	size_t out = 0;

	for (size_t i = 0; i < b->nr; i++) {
		if (out && b->syms[out - 1].sym.start == b->syms[i].sym.start) {
			if (choose_second(b, &b->syms[out - 1], &b->syms[i])) {
				if (!drop(b, &b->syms[out - 1]))
					return -ENOMEM;
				b->syms[out - 1] = b->syms[i];
			} else if (!drop(b, &b->syms[i])) {
				return -ENOMEM;
			}
			continue;
		}
		b->syms[out++] = b->syms[i];
	}
	b->nr = out;
	return 0;
}

/* Sorts v by address, keeping the order of equal ones (a radix sort, a byte
 * a pass, the bytes all symbols share skipped): v in the order added, that
 * is the order compare_added() makes. A file's symbols come in no order,
 * and qsort's calls of compare_added were 9% of a report of a real
 * recording. 0, or -ENOMEM. */
static int sort_by_address(struct builder_symbol *v, size_t n)
{
	struct builder_symbol *tmp = malloc(n * sizeof(*tmp)), *from = v, *to = tmp;
	size_t count[256];

	if (!tmp)
		return -ENOMEM;
	for (unsigned int shift = 0; shift < 64; shift += 8) {
		size_t at = 0;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(from[i].sym.start >> shift) & 0xff]++;
		if (count[(from[0].sym.start >> shift) & 0xff] == n)
			continue; /* one byte for all */
		for (unsigned int d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i].sym.start >> shift) & 0xff]++] = from[i];
		to = from;
		from = from == v ? tmp : v;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
	free(tmp);
	return 0;
}

/* Whether v is in the order its symbols were added. */
static bool in_order_added(const struct builder_symbol *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].order <= v[i - 1].order)
			return false;
	return true;
}

/* Sorts the symbols by address, then the order added. Tables come nearly
 * sorted (/proc/kallsyms is, but for a few modules at its end): the sorted
 * run at the front is kept, the rest sorted and merged into it. */
static int sort_added(struct symtab_builder *b)
{
	struct builder_symbol *tail;
	size_t run = 1, nr_tail, i, j, k;

	if (b->nr < 2)
		return 0;
	while (run < b->nr && compare_added(&b->syms[run - 1], &b->syms[run]) < 0)
		run++;
	if (run == b->nr)
		return 0;
	nr_tail = b->nr - run;
	if (nr_tail > run) { /* mostly unsorted: sort it all */
		if (in_order_added(b->syms, b->nr))
			return sort_by_address(b->syms, b->nr);
		qsort(b->syms, b->nr, sizeof(*b->syms), compare_added);
		return 0;
	}
	tail = malloc(nr_tail * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	memcpy(tail, b->syms + run, nr_tail * sizeof(*tail));
	qsort(tail, nr_tail, sizeof(*tail), compare_added);
	/* merge from the back: the front run stays in place until overwritten */
	i = run, j = nr_tail, k = b->nr;
	while (j) {
		if (i && compare_added(&b->syms[i - 1], &tail[j - 1]) > 0)
			b->syms[--k] = b->syms[--i];
		else
			b->syms[--k] = tail[--j];
	}
	free(tail);
	return 0;
}

int symtab_builder_fixup(struct symtab_builder *b)
{
	if (!b->nr)
		return 0;
	if (sort_added(b))
		return -ENOMEM;
	fixup_ends(b);
	return fixup_duplicates(b);
}

/* Whether any two of the (sorted) symbols overlap: one starts where
 * another holds it, or two start at one address. */
static bool any_overlap(const struct symtab_builder *b)
{
	for (size_t i = 0; i + 1 < b->nr; i++)
		if (b->syms[i].sym.end > b->syms[i + 1].sym.start ||
		    b->syms[i].sym.start == b->syms[i + 1].sym.start)
			return true;
	return false;
}

/* perf's tree as perf made it: each symbol inserted as it was added, and
 * the duplicates erased where perf erased them. */
static int build_tree(struct symtab_builder *b)
{
	const uint64_t *keys = (const uint64_t *)b->keys.data;
	const struct tree_erase *e = (const struct tree_erase *)b->erases.data;
	size_t nr_erases = b->erases.len / sizeof(*e);
	uint32_t inserted = 0;

	if (symbol_tree_reserve(&b->tree, (size_t)b->added + 1))
		return -ENOMEM;
	for (size_t i = 0; i <= nr_erases; i++) {
		uint32_t until = i < nr_erases ? e[i].added : b->added;

		for (; inserted < until; inserted++)
			symbol_tree_insert(&b->tree, inserted, keys[inserted]);
		if (i < nr_erases)
			symbol_tree_erase(&b->tree, e[i].order);
	}
	return 0;
}

/* The tree's links by node (the order added) become links by index in t. */
static int keep_tree(struct symtab_builder *b, struct symtab *t)
{
	uint32_t *index = malloc(((size_t)b->added ? b->added : 1) * sizeof(*index));

	t->tree = malloc((b->nr ? b->nr : 1) * 2 * sizeof(*t->tree));
	if (!index || !t->tree) {
		free(index);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->nr; i++)
		index[b->syms[i].order] = (uint32_t)i;
	for (size_t i = 0; i < b->nr; i++) {
		uint32_t node = b->syms[i].order, l = b->tree.nodes[node].left,
			 r = b->tree.nodes[node].right;

		t->tree[2 * i] = l == TREE_NONE ? TREE_NONE : index[l];
		t->tree[2 * i + 1] = r == TREE_NONE ? TREE_NONE : index[r];
	}
	t->root = b->tree.root == TREE_NONE ? TREE_NONE : index[b->tree.root];
	free(index);
	return 0;
}

/* The names of a table's mangled symbols, demangled as asked for. */
struct demangled_names {
	pthread_mutex_t lock;
	struct hash_map names; /* symbol index -> struct demangled_name */
	size_t bytes;          /* the names and what holds them */
};

struct demangled_name {
	uint32_t index;
	char *name; /* NULL: the demangler does not take it */
};

static struct demangled_names *demangled_names_new(void)
{
	struct demangled_names *d = calloc(1, sizeof(*d));

	if (d) {
		pthread_mutex_init(&d->lock, NULL);
		hash_map_init(&d->names, hash_u32_key, equal_u32_key);
	}
	return d;
}

static void free_name(void *value, void *ctx)
{
	(void)ctx;
	free(((struct demangled_name *)value)->name);
}

static void demangled_names_free(struct demangled_names *d)
{
	hash_map_each(&d->names, free_name, NULL);
	hash_map_free_all(&d->names);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

int symtab_builder_finish(struct symtab_builder *b, struct symtab *t)
{
	struct symbol *syms;

	memset(t, 0, sizeof(*t));
	t->root = TREE_NONE;
	if (sort_added(b) ||
	    (!b->kallsyms && any_overlap(b) && (build_tree(b) || keep_tree(b, t))))
		return -ENOMEM;
	/* the table takes the builder's array, each symbol moved down into
	 * the space of the (larger) builder_symbol it was: no second copy of
	 * the kernel's 100000 symbols to fault in */
	_Static_assert(sizeof(struct symbol) <= sizeof(struct builder_symbol),
		       "a symbol fits where its builder_symbol was");
	syms = (struct symbol *)b->syms;
	for (size_t i = 0; i < b->nr; i++) {
		struct symbol s = b->syms[i].sym;

		s.name = (const char *)b->names.data + (uintptr_t)s.name;
		syms[i] = s;
	}
	b->syms = NULL;
	if (b->nr) {
		t->syms = realloc(syms, b->nr * sizeof(*syms));
		if (!t->syms) /* shrinking failed: keep it as it is */
			t->syms = syms;
	} else {
		free(syms);
		t->syms = calloc(1, sizeof(*t->syms));
		if (!t->syms) {
			free(t->tree);
			t->tree = NULL;
			symtab_builder_free(b);
			return -ENOMEM;
		}
	}
	if (b->any_mangled && !(t->demangled = demangled_names_new())) {
		free(t->syms);
		free(t->tree);
		memset(t, 0, sizeof(*t));
		symtab_builder_free(b);
		return -ENOMEM;
	}
	t->nr = b->nr;
	t->names = (char *)b->names.data;
	t->names_len = b->names.len;
	symbol_tree_free(&b->tree);
	byte_buffer_free(&b->keys);
	byte_buffer_free(&b->erases);
	memset(b, 0, sizeof(*b));
	return 0;
}

void symtab_builder_free(struct symtab_builder *b)
{
	free(b->syms);
	symbol_tree_free(&b->tree);
	byte_buffer_free(&b->names);
	byte_buffer_free(&b->keys);
	byte_buffer_free(&b->erases);
	memset(b, 0, sizeof(*b));
}

void symtab_builder_keep(struct symtab_builder *b,
			 bool (*keep)(char *name, bool tab, const struct symbol *s, void *ctx),
			 void *ctx)
{
	size_t out = 0;

	for (size_t i = 0; i < b->nr; i++) {
		char *name = (char *)b->names.data + (uintptr_t)b->syms[i].sym.name;

		if (keep(name, b->syms[i].tab, &b->syms[i].sym, ctx))
			b->syms[out++] = b->syms[i];
	}
	b->nr = out;
}

const char *symtab_name(const struct symtab *t, const struct symbol *s)
{
	struct demangled_name *n;
	const char *name = s->name;
	bool added;

	if (!s->mangled || !t->demangled || s < t->syms || s >= t->syms + t->nr)
		return name;
	pthread_mutex_lock(&t->demangled->lock);
	n = hash_map_get_or_add_u32(&t->demangled->names, (uint32_t)(s - t->syms), sizeof(*n),
				    offsetof(struct demangled_name, index), &added);
	if (n && added) {
		n->name = demangle(s->name);
		t->demangled->bytes += sizeof(*n) + sizeof(struct hash_map_slot) +
				       (n->name ? strlen(n->name) + 1 : 0);
	}
	if (n && n->name)
		name = n->name;
	pthread_mutex_unlock(&t->demangled->lock);
	return name;
}

size_t symtab_demangled_bytes(const struct symtab *t)
{
	size_t bytes = 0;

	if (t->demangled) {
		pthread_mutex_lock(&t->demangled->lock);
		bytes = t->demangled->bytes;
		pthread_mutex_unlock(&t->demangled->lock);
	}
	return bytes;
}

static bool holds(const struct symbol *s, uint64_t addr)
{
	return addr >= s->start && (addr < s->end || (addr == s->end && s->end == s->start));
}

const struct symbol *symtab_find(const struct symtab *t, uint64_t addr)
{
	size_t lo;

	if (t->on_disk)
		return kallsyms_disk_lookup(t->on_disk, addr);
	if (t->tree) { /* perf's symbols__find: down its tree, the first that holds addr */
		uint32_t at = t->root;

		while (at != TREE_NONE) {
			const struct symbol *s = &t->syms[at];

			if (addr < s->start)
				at = t->tree[2 * at];
			else if (!holds(s, addr))
				at = t->tree[2 * at + 1];
			else
				return s;
		}
		return NULL;
	}
	/* no symbols overlap (kallsyms', and a file's that needed no tree) */
	lo = sorted_count_at_or_below(t->syms, t->nr, sizeof(*t->syms), offsetof(struct symbol, start),
				      addr);
	return lo && holds(&t->syms[lo - 1], addr) ? &t->syms[lo - 1] : NULL;
}

int symtab_offset_to_vaddr(const struct symtab *t, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < t->nr_segments; i++) {
		const struct elf_segment *s = &t->segments[i];

		if (offset >= s->offset && offset - s->offset < s->size) { /* no wrap */
			*vaddr = offset - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int symtab_offset_to_lookup_addr(const struct symtab *t, uint64_t offset, uint64_t *vaddr)
{
	const struct elf_segment *before = NULL;

	if (!symtab_offset_to_vaddr(t, offset, vaddr))
		return 0;
	for (size_t i = 0; i < t->nr_segments; i++)
		if (t->segments[i].offset <= offset &&
		    (!before || t->segments[i].offset > before->offset))
			before = &t->segments[i];
	if (!before)
		return -ENOENT;
	*vaddr = offset - before->offset + before->vaddr;
	return 0;
}

void symtab_free(struct symtab *t)
{
	if (t->cached) {
		symtab_cache_release(t);
		return;
	}
	if (t->on_disk)
		kallsyms_disk_release(t->on_disk);
	if (t->demangled)
		demangled_names_free(t->demangled);
	free(t->syms);
	free(t->tree);
	free(t->names);
	free(t->segments);
	memset(t, 0, sizeof(*t));
}
