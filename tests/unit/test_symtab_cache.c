/* SPDX-License-Identifier: GPL-2.0-only */
/* test_symtab_cache.c: symbol tables kept between reports (export -g's
 * profiles): the same inode's table is shared, not read again; a changed
 * file (a new change time) is read again; tables the last report did not
 * use go, those still in use once their users give them back; nothing is
 * kept over the budget or with the cache off. ASan sees every table freed.
 * The counts are the process's since its start (counters): read as deltas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "symbols/symtab_cache.h"
#include "test_util.h"

struct fixture {
	char *dir;
	char path[PATH_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *out = NULL;

	f->dir = tu_tempdir();
	snprintf(f->path, sizeof(f->path), "%s/prog", f->dir);
	/* a binary with symbols of its own, in a file the test may change */
	if (tu_sh(&out, "cp /proc/%d/exe %s", (int)getpid(), f->path))
		return -1;
	free(out);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	symtab_cache_configure(0, 1);
	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void load(const struct fixture *f, struct symtab *t)
{
	char err[512];

	assert_int_equal(symtab_load_elf(t, f->path, err, sizeof(err)), 0);
	assert_true(t->nr > 0);
}

static void test_shared_while_kept(void **state)
{
	struct fixture *f = *state;
	struct symtab_cache_counts c;
	struct symtab a, b, d;

	symtab_cache_configure(64u << 20, 1);
	symtab_cache_report_begins();
	load(f, &a);
	load(f, &b);
	symtab_cache_counts(&c);
	assert_int_equal(c.misses, 1);
	assert_int_equal(c.hits, 1);
	assert_int_equal(c.entries, 1);
	assert_true(c.bytes > a.nr * sizeof(*a.syms));
	/* one table, seen twice */
	assert_ptr_equal(a.syms, b.syms);
	assert_ptr_equal(symtab_find(&a, a.syms[a.nr / 2].start),
			 symtab_find(&b, a.syms[a.nr / 2].start));
	symtab_free(&b);
	symtab_cache_report_ends();
	/* the next report finds it; one that does not use it lets it go */
	symtab_cache_report_begins();
	load(f, &d);
	assert_ptr_equal(d.syms, a.syms);
	symtab_cache_report_ends();
	symtab_cache_report_begins();
	symtab_cache_report_ends();
	symtab_cache_counts(&c);
	assert_int_equal(c.entries, 0);
	assert_int_equal(c.bytes, 0);
	assert_int_equal(c.dropped, 1);
	/* still readable by those who hold it, freed by the last of them */
	assert_non_null(symtab_find(&a, a.syms[0].start));
	symtab_free(&a);
	assert_non_null(symtab_find(&d, d.syms[0].start));
	symtab_free(&d);
}

static void test_changed_file_read_again(void **state)
{
	struct fixture *f = *state;
	struct symtab_cache_counts c, before;
	struct symtab a, b;

	symtab_cache_configure(64u << 20, 1);
	symtab_cache_counts(&before);
	symtab_cache_report_begins();
	load(f, &a);
	/* the same bytes, but a new change time: not proven the same */
	assert_int_equal(chmod(f->path, 0700), 0);
	load(f, &b);
	symtab_cache_counts(&c);
	assert_int_equal(c.misses - before.misses, 2);
	assert_int_equal(c.hits - before.hits, 0);
	assert_ptr_not_equal(a.syms, b.syms);
	symtab_free(&a);
	symtab_free(&b);
	symtab_cache_report_ends();
	/* both were used by this report; the next, using neither, drops both */
	symtab_cache_counts(&c);
	assert_int_equal(c.entries, 2);
	symtab_cache_report_begins();
	symtab_cache_report_ends();
	symtab_cache_counts(&c);
	assert_int_equal(c.entries, 0);
}

static void test_budget_and_off(void **state)
{
	struct fixture *f = *state;
	struct symtab_cache_counts c, before;
	struct symtab a, b;

	symtab_cache_configure(1000, 1);
	symtab_cache_counts(&before);
	symtab_cache_report_begins();
	load(f, &a);
	load(f, &b);
	symtab_cache_counts(&c);
	assert_int_equal(c.over_budget - before.over_budget, 2);
	assert_int_equal(c.entries, 0);
	assert_null(a.cached);
	assert_ptr_not_equal(a.syms, b.syms);
	symtab_free(&a);
	symtab_free(&b);
	symtab_cache_report_ends();
	/* off: every load reads its file, nothing is counted */
	symtab_cache_configure(0, 1);
	load(f, &a);
	load(f, &b);
	assert_ptr_not_equal(a.syms, b.syms);
	symtab_cache_counts(&c);
	assert_int_equal(c.hits, before.hits);
	assert_int_equal(c.entries, 0);
	symtab_free(&a);
	symtab_free(&b);
}

/* Names demangled as reports name frames grow a kept table: counted in the
 * budget at the end of the report, and past it the table goes. */
static void test_demangled_names_count_in_the_budget(void **state)
{
	struct stat st = { .st_dev = 1, .st_ino = 42, .st_size = 1 };
	struct symtab_cache_counts before, after;
	struct symtab_builder b;
	struct symtab t, again;
	char name[64];

	(void)state;
	symtab_builder_init(&b, false);
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "_ZN5outer9inner%04dEv", i);
		assert_int_equal(symtab_builder_add_demangled(&b, 0x1000 + 16 * (uint64_t)i, 16,
							      STB_GLOBAL, STT_FUNC, name), 0);
	}
	assert_int_equal(symtab_builder_fixup(&b), 0);
	assert_int_equal(symtab_builder_finish(&b, &t), 0);
	symtab_cache_configure(100u << 10, 4);
	symtab_cache_report_begins();
	symtab_cache_keep(&st, "/", "/cxx", &t);
	assert_non_null(t.cached);
	symtab_cache_report_ends();
	symtab_cache_counts(&before);
	assert_int_equal(before.entries, 1);
	assert_true(before.bytes < 100u << 10);
	/* a report names every frame */
	symtab_cache_report_begins();
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "outer::inner%04d", i);
		assert_string_equal(symtab_name(&t, symtab_find(&t, 0x1000 + 16 * (uint64_t)i)), name);
	}
	symtab_cache_report_ends();
	symtab_cache_counts(&after);
	assert_int_equal(after.over_budget - before.over_budget, 1);
	assert_int_equal(after.entries, 0);
	assert_int_equal(after.bytes, 0);
	/* the view in use still reads its names; freed with it */
	assert_string_equal(symtab_name(&t, symtab_find(&t, 0x1000)), "outer::inner0000");
	assert_false(symtab_cache_find(&st, "/", "/cxx", &again));
	symtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shared_while_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_file_read_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_and_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_demangled_names_count_in_the_budget, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
