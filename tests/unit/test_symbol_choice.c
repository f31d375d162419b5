/* SPDX-License-Identifier: GPL-2.0-only */
/* test_symbol_choice.c: symbol tables as perf 6.1 makes them: which alias it keeps,
 * how far a symbol reaches, kallsyms' rules, its tree's lookups among overlaps
 * (and no tree where none overlap), names demangled as perf's are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "symbols/kallsyms.h"
#include "symbols/symbol_tree.h"
#include "symbols/symbols.h"
#include "symbols/symtab_cache.h"
#include "test_util.h"

static struct symbol sym(const char *name, uint64_t size, uint8_t binding)
{
	return (struct symbol){ 0x1000, 0x1000 + size, name, binding, STT_FUNC, false };
}

/* choose_best_symbol's rules, each deciding where the ones before tie. */
static void test_choose_best_rules(void **state)
{
	struct symbol a, b;

	(void)state;
	/* a size over none */
	a = sym("zzz", 0, STB_GLOBAL), b = sym("y", 8, STB_LOCAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	assert_int_equal(symbol_choose_best(&b, &a), 0);
	/* not weak over weak: __brk, not brk */
	a = sym("brk", 8, STB_WEAK), b = sym("__brk", 8, STB_GLOBAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	assert_int_equal(symbol_choose_best(&b, &a), 0);
	/* a local beats a weak one: __GI___execve over execve */
	a = sym("execve", 8, STB_WEAK), b = sym("__GI___execve", 8, STB_LOCAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	/* global over local */
	a = sym("local", 8, STB_LOCAL), b = sym("__global", 8, STB_GLOBAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	/* fewer leading underscores: mprotect over __mprotect and __GI_mprotect */
	a = sym("__mprotect", 8, STB_LOCAL), b = sym("mprotect", 8, STB_LOCAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	/* then the longer name: __GI___execve over __execve */
	a = sym("__execve", 8, STB_LOCAL), b = sym("__GI___execve", 8, STB_LOCAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
	/* all equal: the first, unless it is a SyS alias */
	a = sym("abc", 8, STB_GLOBAL), b = sym("xyz", 8, STB_GLOBAL);
	assert_int_equal(symbol_choose_best(&a, &b), 0);
	a = sym("SyS_read", 8, STB_GLOBAL), b = sym("sys_read", 8, STB_GLOBAL);
	assert_int_equal(symbol_choose_best(&a, &b), 1);
}

/* One phase of perf's loading: the symbols in file order, then the fixups. */
static void add(struct symtab_builder *b, uint64_t start, uint64_t size, uint8_t binding,
		const char *name)
{
	assert_int_equal(symtab_builder_add(b, start, size, binding, STT_FUNC, name), 0);
}

static const char *name_at(const struct symtab *t, uint64_t addr)
{
	const struct symbol *s = symtab_find(t, addr);

	return s ? s->name : "(none)";
}

/* The end fixup comes before the choice among aliases, so of two zero-sized
 * aliases the second reaches the next symbol and wins; a sized alias keeps
 * its size and its rules. */
static void test_fixups_then_aliases(void **state)
{
	struct symtab_builder b;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	add(&b, 0x1000, 0, STB_GLOBAL, "first_zero");
	add(&b, 0x1000, 0, STB_WEAK, "second_zero");
	add(&b, 0x1100, 0x20, STB_WEAK, "brk");
	add(&b, 0x1100, 0x20, STB_GLOBAL, "__brk");
	add(&b, 0x1200, 0x10, STB_LOCAL, "__sin_fma");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	assert_int_equal(t.nr, 3);
	assert_string_equal(name_at(&t, 0x1000), "second_zero");
	assert_string_equal(name_at(&t, 0x10ff), "second_zero");
	assert_string_equal(name_at(&t, 0x1110), "__brk");
	/* a sized symbol keeps its end: past it, nothing */
	assert_string_equal(name_at(&t, 0x1150), "(none)");
	/* the last symbol with a size ends there */
	assert_string_equal(name_at(&t, 0x120f), "__sin_fma");
	assert_string_equal(name_at(&t, 0x1210), "(none)");
	symtab_free(&t);
}

/* A second table (.dynsym after .symtab) is fixed up with the first one's
 * symbols in place: a zero-sized alias there reaches the next symbol too, and
 * the rules decide (global over local). */
static void test_second_table(void **state)
{
	struct symtab_builder b;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	add(&b, 0x1000, 0, STB_LOCAL, "_init");
	add(&b, 0x1100, 0x40, STB_LOCAL, "__local_name");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	add(&b, 0x1000, 0, STB_GLOBAL, "_init_alias");
	add(&b, 0x1100, 0x40, STB_GLOBAL, "exported");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	assert_string_equal(name_at(&t, 0x1000), "_init_alias");
	assert_string_equal(name_at(&t, 0x1120), "exported");
	symtab_free(&t);
}

/* A file's symbols come in no order: sorted by address, every byte of it
 * (the radix sort's passes), equal addresses in the order added, as qsort
 * by address then order sorted them: of two zero-sized aliases the second
 * added still wins wherever it sits in the scramble. */
static void test_symbols_in_no_order(void **state)
{
	enum { N = 600 };
	static char names[N][16];
	struct symtab_builder b;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	for (uint32_t i = 0; i < N; i++) { /* i*7919 mod N: each once, scrambled */
		uint32_t k = (i * 7919) % N;
		/* addresses differing in low, middle and high bytes */
		uint64_t start = 0x400000ULL + (uint64_t)k * 0x10 + ((uint64_t)(k % 3) << 40);

		snprintf(names[k], sizeof(names[k]), "f%u", k);
		add(&b, start, 0x10, STB_GLOBAL, names[k]);
		if (k == 301)
			add(&b, 0x10000000000ULL, 0, STB_GLOBAL, "zero_a");
		if (k == 5)
			add(&b, 0x10000000000ULL, 0, STB_GLOBAL, "zero_b");
	}
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	for (size_t i = 1; i < t.nr; i++)
		assert_true(t.syms[i - 1].start < t.syms[i].start);
	for (uint32_t k = 0; k < N; k++) {
		uint64_t start = 0x400000ULL + (uint64_t)k * 0x10 + ((uint64_t)(k % 3) << 40);

		assert_string_equal(name_at(&t, start + 4), names[k]);
	}
	/* 301 comes before 5 in the scramble (i*7919 mod 600): zero_a first */
	assert_string_equal(name_at(&t, 0x10000000000ULL), "zero_b");
	symtab_free(&t);
}

/*
 * PLT entries come after the fixups, inside the _init stretched to _start,
 * and perf finds a symbol by walking its red-black tree, not by interval:
 * with _init and _start inserted, then sin@plt, the tree is sin@plt over
 * _init and _start, so an address of _init past sin@plt is found in neither.
 */
static void test_lookup_walks_perfs_tree(void **state)
{
	struct symtab_builder b;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	add(&b, 0x1000, 0, STB_GLOBAL, "_init");
	add(&b, 0x10b0, 0x22, STB_GLOBAL, "_start");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	add(&b, 0x1030, 0x10, STB_GLOBAL, "sin@plt");
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	assert_string_equal(name_at(&t, 0x1005), "_init");
	assert_string_equal(name_at(&t, 0x1035), "sin@plt");
	assert_string_equal(name_at(&t, 0x1048), "(none)");
	assert_string_equal(name_at(&t, 0x10b5), "_start");
	symtab_free(&t);
}

/* A table whose symbols overlap nowhere needs no tree: a binary search
 * finds what a walk down perf's tree would. One overlap, and the tree is
 * built as perf built it. */
static void test_tree_only_where_symbols_overlap(void **state)
{
	struct symtab_builder b;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	add(&b, 0x2000, 0x10, STB_GLOBAL, "second");
	add(&b, 0x1000, 0x10, STB_GLOBAL, "first");
	add(&b, 0x1000, 0x10, STB_WEAK, "first_alias");
	add(&b, 0x3000, 0, STB_GLOBAL, "last");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	assert_null(t.tree);
	assert_string_equal(name_at(&t, 0x1000), "first");
	assert_string_equal(name_at(&t, 0x100f), "first");
	assert_string_equal(name_at(&t, 0x1010), "(none)");
	assert_string_equal(name_at(&t, 0x2008), "second");
	assert_string_equal(name_at(&t, 0x3008), "last");
	symtab_free(&t);

	symtab_builder_init(&b, false);
	add(&b, 0x1000, 0x20, STB_GLOBAL, "outer");
	add(&b, 0x1010, 0x8, STB_GLOBAL, "inner");
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	assert_non_null(t.tree);
	/* perf's walk stops at the first that holds it: outer, its root (a
	 * binary search would have found inner) */
	assert_string_equal(name_at(&t, 0x1014), "outer");
	assert_string_equal(name_at(&t, 0x1004), "outer");
	symtab_free(&t);
}

/* A mangled name is kept as the file spells it and demangled when looked
 * up (once); perf's choice among aliases compares the demangled names, as
 * perf's symbols hold them: "abcde" (demangled, longer) over "xy", where the
 * mangled "_Z5abcdev" would lose by its leading underscore. */
static void test_names_demangled_when_asked(void **state)
{
	struct symtab_builder b;
	const struct symbol *s;
	struct symtab t;

	(void)state;
	symtab_builder_init(&b, false);
	assert_int_equal(symtab_builder_add_demangled(&b, 0x1000, 0x10, STB_GLOBAL, STT_FUNC,
						      "_ZN3foo3barEv"), 0);
	assert_int_equal(symtab_builder_add_demangled(&b, 0x2000, 0x10, STB_GLOBAL, STT_FUNC, "xy"),
			 0);
	assert_int_equal(symtab_builder_add_demangled(&b, 0x2000, 0x10, STB_GLOBAL, STT_FUNC,
						      "_Z5abcdev"), 0);
	assert_int_equal(symtab_builder_add_demangled(&b, 0x3000, 0x10, STB_GLOBAL, STT_FUNC,
						      "_Znot_a_name"), 0);
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	s = symtab_find(&t, 0x1004);
	assert_non_null(s);
	assert_string_equal(s->name, "_ZN3foo3barEv");
	assert_string_equal(symtab_name(&t, s), "foo::bar");
	assert_ptr_equal(symtab_name(&t, s), symtab_name(&t, s));
	assert_string_equal(symtab_name(&t, symtab_find(&t, 0x2004)), "abcde");
	/* the demangler does not take it: the name as spelled, as perf shows it */
	assert_string_equal(symtab_name(&t, symtab_find(&t, 0x3004)), "_Znot_a_name");
	symtab_free(&t);
}

/* kallsyms: of the aliases at one address the last one listed (the only one
 * its fixup sizes); a page past the kernel's last symbol before a module's;
 * no symbols of modules perf has no map for (no modules file beside it);
 * where a table kept between reports answers as one read now would. */
static void test_kallsyms(void **state)
{
	static const char text[] = "ffffffff81000000 T _text\n"
				   "ffffffff81000100 T sys_alias_a\n"
				   "ffffffff81000100 t sys_alias_b\n"
				   "ffffffff81000200 W weak_func\n"
				   "ffffffff81000300 r not_text\n"
				   "ffffffff81000400 t last_kernel\n"
				   "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";
	char *dir = tu_tempdir(), path[4096], err[256];
	struct symtab t;

	(void)state;
	tu_write_file(dir, "kallsyms", text, strlen(text));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	assert_int_equal(symtab_load_kallsyms(&t, path, err, sizeof(err)), 0);
	assert_string_equal(name_at(&t, 0xffffffff81000150), "sys_alias_b");
	/* 'r' is not read: weak_func reaches last_kernel */
	assert_string_equal(name_at(&t, 0xffffffff81000350), "weak_func");
	assert_string_equal(name_at(&t, 0xffffffff81001fff), "last_kernel");
	assert_string_equal(name_at(&t, 0xffffffff81002000), "(none)");
	assert_string_equal(name_at(&t, 0xffffffffc0201000), "(none)");
	/* with no module kept, the table holds while the modules do */
	assert_true(t.steady_start == 0 && t.steady_end == UINT64_MAX);
	symtab_free(&t);

	/* a kcore beside: every module's symbols (BPF programs' and
	 * trampolines', which come and go), so a kept table answers only for
	 * the kernel's own, from its first function to its last symbol */
	tu_write_file(dir, "kcore", "", 0);
	assert_int_equal(symtab_load_kallsyms(&t, path, err, sizeof(err)), 0);
	assert_string_equal(name_at(&t, 0xffffffffc0201000), "ftrace_trampoline");
	assert_true(t.steady_start == 0xffffffff81000000 && t.steady_end == 0xffffffff81000400);
	assert_true(kallsyms_answers(&t, 0xffffffffc0201000)); /* read now: answers all */
	{
		struct stat st;

		symtab_cache_configure(64u << 20, 1);
		assert_int_equal(stat(path, &st), 0);
		symtab_cache_keep(&st, "test", path, &t);
		assert_non_null(t.cached);
		assert_true(kallsyms_answers(&t, 0xffffffff81000000));
		assert_true(kallsyms_answers(&t, 0xffffffff810003ff));
		assert_false(kallsyms_answers(&t, 0xffffffff81000400));
		assert_false(kallsyms_answers(&t, 0xffffffffc0201000));
		assert_false(kallsyms_answers(&t, 0xffffffff80ffffff));
		symtab_free(&t);
		symtab_cache_configure(0, 1);
	}
	tu_rmtree(dir);
	free(dir);
}

/* kallsyms' addresses as strtoull reads them, by whichever path: upper case
 * digits, a line whose 16 characters are not all digits (skipped: no space
 * after its digits), a shorter address, a last line without its newline. */
static void test_kallsyms_addresses(void **state)
{
	static const char text[] = "FFFFFFFF81000000 T upper_hex\n"
				   "ffffffff81000100 T lower_hex\n"
				   "ffffffff8100g200 T not_hex\n"
				   "81000400 T short_address\n"
				   "ffffffff81000300 T after\n"
				   "ffffffff81000400 t x";
	char *dir = tu_tempdir(), path[4096], err[256];
	struct symtab t;

	(void)state;
	tu_write_file(dir, "kallsyms", text, strlen(text));
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	assert_int_equal(symtab_load_kallsyms(&t, path, err, sizeof(err)), 0);
	assert_int_equal(t.nr, 5);
	assert_string_equal(name_at(&t, 0xffffffff81000050), "upper_hex");
	assert_string_equal(name_at(&t, 0xffffffff81000250), "lower_hex");
	assert_string_equal(name_at(&t, 0xffffffff81000300), "after");
	assert_string_equal(name_at(&t, 0x81000400), "short_address");
	assert_string_equal(name_at(&t, 0xffffffff81000401), "x");
	symtab_free(&t);
	tu_rmtree(dir);
	free(dir);
}

/* The red-black properties and the in-order sequence (by key, then by the
 * order added) after every insertion and erasure; returns the black height. */
static int check_subtree(const struct symbol_tree *t, uint32_t n, uint32_t parent,
			 const uint64_t *keys, uint32_t *seq, size_t *nr)
{
	int lh, rh;

	if (n == TREE_NONE)
		return 1;
	assert_int_equal(t->nodes[n].parent, parent);
	if (t->nodes[n].red)
		assert_true((t->nodes[n].left == TREE_NONE || !t->nodes[t->nodes[n].left].red) &&
			    (t->nodes[n].right == TREE_NONE || !t->nodes[t->nodes[n].right].red));
	lh = check_subtree(t, t->nodes[n].left, n, keys, seq, nr);
	seq[(*nr)++] = n;
	rh = check_subtree(t, t->nodes[n].right, n, keys, seq, nr);
	assert_int_equal(lh, rh);
	return lh + !t->nodes[n].red;
}

static void check_tree(const struct symbol_tree *t, const uint64_t *keys, size_t live)
{
	uint32_t seq[512];
	size_t nr = 0;

	if (t->root != TREE_NONE)
		assert_false(t->nodes[t->root].red);
	check_subtree(t, t->root, TREE_NONE, keys, seq, &nr);
	assert_int_equal(nr, live);
	for (size_t i = 1; i < nr; i++)
		assert_true(keys[seq[i - 1]] < keys[seq[i]] ||
			    (keys[seq[i - 1]] == keys[seq[i]] && seq[i - 1] < seq[i]));
}

static void test_tree_stays_red_black(void **state)
{
	struct symbol_tree t;
	uint64_t keys[512];
	bool live[512] = { false };
	size_t nr = 0;
	uint32_t seed = 12345;

	(void)state;
	symbol_tree_init(&t);
	assert_int_equal(symbol_tree_reserve(&t, 512), 0);
	for (uint32_t i = 0; i < 512; i++) {
		seed = seed * 1103515245 + 12345;
		keys[i] = (seed >> 16) % 64; /* many equal keys */
		symbol_tree_insert(&t, i, keys[i]);
		live[i] = true;
		nr++;
		if (i % 3 == 2) {
			uint32_t victim = (seed >> 8) % (i + 1);

			if (live[victim]) {
				symbol_tree_erase(&t, victim);
				live[victim] = false;
				nr--;
			}
		}
		check_tree(&t, keys, nr);
	}
	symbol_tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_best_rules),
		cmocka_unit_test(test_fixups_then_aliases),
		cmocka_unit_test(test_second_table),
		cmocka_unit_test(test_symbols_in_no_order),
		cmocka_unit_test(test_lookup_walks_perfs_tree),
		cmocka_unit_test(test_tree_only_where_symbols_overlap),
		cmocka_unit_test(test_names_demangled_when_asked),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_kallsyms_addresses),
		cmocka_unit_test(test_tree_stays_red_black),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
