/* SPDX-License-Identifier: GPL-2.0-only */
/* test_perf_map.c: JITs' perf-PID.map files as perf reads them: "START SIZE
 * name" in hex, malformed lines skipped, a symlink or a FIFO refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/perf_map.h"
#include "test_util.h"

static const char map_text[] =
	"7f0000001000 40 jit_hot\n"
	"not a line\n"
	"7f0000002000 zz bad_size\n"
	"7f0000001020 10 jit_inner_overlap\n"
	"7f0000003000 100 Interpreter::call(int) [compiled]\n"
	"7f0000004000 0 zero_size\n"
	"ffffffffffffff00 1000 wraps\n";

static void test_perf_map_symbols(void **state)
{
	char *dir = tu_tempdir();
	const char *dirs[] = { dir, NULL };
	const struct symbol *sym;
	struct symtab t;

	(void)state;
	tu_write_file(dir, "perf-4242.map", map_text, strlen(map_text));
	assert_int_equal(perf_map_load(&t, dir, 4242, dirs), 0);
	sym = symtab_find(&t, 0x7f0000001004);
	assert_non_null(sym);
	assert_string_equal(sym->name, "jit_hot");
	/* the overlap is trimmed: each address names one symbol */
	sym = symtab_find(&t, 0x7f0000001024);
	assert_non_null(sym);
	assert_string_equal(sym->name, "jit_inner_overlap");
	sym = symtab_find(&t, 0x7f00000030ff);
	assert_non_null(sym);
	assert_string_equal(sym->name, "Interpreter::call(int) [compiled]");
	assert_null(symtab_find(&t, 0x7f0000003100));
	assert_null(symtab_find(&t, 0x7f0000002004));
	assert_null(symtab_find(&t, 0x7f0000004000));
	assert_int_equal(t.nr, 3);
	symtab_free(&t);
	/* none for another pid (the root holds no tmp/perf-PID.map either) */
	assert_int_equal(perf_map_load(&t, dir, 4243, dirs), -ENOENT);
	tu_rmtree(dir);
	free(dir);
}

static void test_perf_map_refuses_links_and_fifos(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], target[PATH_MAX];
	const char *dirs[] = { dir, NULL };
	struct symtab t;

	(void)state;
	tu_write_file(dir, "real.map", map_text, strlen(map_text));
	snprintf(target, sizeof(target), "%s/real.map", dir);
	snprintf(path, sizeof(path), "%s/perf-7.map", dir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(perf_map_load(&t, dir, 7, dirs), -ENOENT);
	snprintf(path, sizeof(path), "%s/perf-8.map", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(perf_map_load(&t, dir, 8, dirs), -ENOENT);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_map_symbols),
		cmocka_unit_test(test_perf_map_refuses_links_and_fifos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
