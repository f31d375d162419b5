/* SPDX-License-Identifier: GPL-2.0-only */
/* test_kallsyms_disk.c: the kernel's table kept on disk for the boot
 * (symbols/kallsyms_disk.c): read back, it finds for every address what the
 * table read from kallsyms finds (name, start, end, binding, type, the
 * kernel's end and steady range); the file is 0600 in a 0700 directory; a
 * file of other modules, spoiled (a byte, its length), another's (mode), a
 * symlink, or a directory others may write is never read; keeping a table
 * replaces a spoiled file and removes other boots' files and temporary
 * files left behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/kallsyms.h"
#include "symbols/kallsyms_disk.h"
#include "symbols/symbols.h"
#include "test_util.h"

#define MODULES "modules 00000000000000aa"

struct fixture {
	char *dir;
	char cache[PATH_MAX], file[PATH_MAX + 64];
	struct symtab table; /* read from a kallsyms file the test wrote */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char path[PATH_MAX], boot[64] = "", err[256];
	static const char types[] = "TtWDdBbT";
	FILE *k, *b;

	f->dir = tu_tempdir();
	snprintf(path, sizeof(path), "%s/kallsyms", f->dir);
	k = fopen(path, "w");
	if (!k)
		return -1;
	/* symbols of each kind, some of one address (aliases), some far apart,
	 * a few of types perf does not read */
	fprintf(k, "ffffffff81000000 T _text\n");
	for (int i = 1; i < 3000; i++)
		fprintf(k, "%016llx %c sym_%d_%s\n", 0xffffffff81000000ULL + (uint64_t)i * 48 +
			(i % 7 == 0 ? 4096 : 0) - (i % 11 == 0 ? 48 : 0), types[i % 8], i,
			i % 5 ? "x" : "a_longer_name_than_most");
	fprintf(k, "ffffffff82000000 r rodata_not_read\nffffffff82100000 T _etext\n");
	fclose(k);
	if (symtab_load_kallsyms(&f->table, path, err, sizeof(err)))
		return -1;
	snprintf(f->cache, sizeof(f->cache), "%s/cache/kallsyms", f->dir);
	b = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!b || !fgets(boot, sizeof(boot), b))
		return -1;
	fclose(b);
	boot[strcspn(boot, "\n")] = '\0';
	snprintf(f->file, sizeof(f->file), "%s/kallsyms.%s", f->cache, boot);
	kallsyms_disk_configure(f->cache);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kallsyms_disk_configure(NULL);
	symtab_free(&f->table);
	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static void assert_same_symbol(const struct symbol *a, const struct symbol *b)
{
	if (!a || !b) {
		assert_ptr_equal(a, b);
		return;
	}
	assert_int_equal(a->start, b->start);
	assert_int_equal(a->end, b->end);
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->binding, b->binding);
	assert_int_equal(a->type, b->type);
}

static void test_kept_table_finds_what_the_read_one_finds(void **state)
{
	struct fixture *f = *state;
	struct symtab kept;
	struct stat st;

	kallsyms_disk_keep(MODULES, &f->table);
	assert_int_equal(stat(f->file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(stat(f->cache, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_true(kallsyms_disk_find(MODULES, &kept));
	assert_non_null(kept.on_disk);
	assert_int_equal(kept.nr, f->table.nr);
	assert_int_equal(kept.kernel_end, f->table.kernel_end);
	assert_int_equal(kept.steady_start, f->table.steady_start);
	assert_int_equal(kept.steady_end, f->table.steady_end);
	for (size_t i = 0; i < f->table.nr; i++) {
		const struct symbol *s = &f->table.syms[i];
		uint64_t at[] = { s->start - 1, s->start, s->start + 1, s->end - 1, s->end,
				  s->end + 1 };

		for (size_t j = 0; j < sizeof(at) / sizeof(at[0]); j++)
			assert_same_symbol(symtab_find(&kept, at[j]), symtab_find(&f->table, at[j]));
	}
	/* found twice: the same symbol */
	assert_ptr_equal(symtab_find(&kept, f->table.syms[5].start),
			 symtab_find(&kept, f->table.syms[5].start));
	assert_null(symtab_find(&kept, 0));
	assert_null(symtab_find(&kept, UINT64_MAX));
	symtab_free(&kept);
	/* another state of the modules: another table */
	assert_false(kallsyms_disk_find("modules 00000000000000bb", &kept));
}

/* Writes byte at offset of path (negative: from the end). */
static void poke(const char *path, long offset, char byte)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, offset, offset < 0 ? SEEK_END : SEEK_SET) >= 0, 1);
	assert_int_equal(write(fd, &byte, 1), 1);
	close(fd);
}

static void test_spoiled_files_are_not_read(void **state)
{
	struct fixture *f = *state;
	char *out = NULL, other[PATH_MAX + 64], want[256];
	struct symtab kept;
	const char *kept_name;

	kallsyms_disk_keep(MODULES, &f->table);
	assert_true(kallsyms_disk_find(MODULES, &kept));
	symtab_free(&kept);
	/* a byte of a name */
	poke(f->file, -3, 'Z');
	assert_false(kallsyms_disk_find(MODULES, &kept));
	/* kept again: replaced */
	kallsyms_disk_keep(MODULES, &f->table);
	assert_true(kallsyms_disk_find(MODULES, &kept));
	symtab_free(&kept);
	/* a byte of the columns (a start) */
	poke(f->file, 200, 0x7f);
	assert_false(kallsyms_disk_find(MODULES, &kept));
	kallsyms_disk_keep(MODULES, &f->table);
	/* shortened */
	assert_int_equal(truncate(f->file, 4096), 0);
	assert_false(kallsyms_disk_find(MODULES, &kept));
	kallsyms_disk_keep(MODULES, &f->table);
	/* others may write it */
	assert_int_equal(chmod(f->file, 0622), 0);
	assert_false(kallsyms_disk_find(MODULES, &kept));
	kallsyms_disk_keep(MODULES, &f->table);
	assert_true(kallsyms_disk_find(MODULES, &kept));
	symtab_free(&kept);
	/* a symlink to a good copy */
	assert_int_equal(tu_sh(&out, "cp %s %s/copy && rm %s && ln -s %s/copy %s", f->file, f->dir,
			       f->file, f->dir, f->file), 0);
	free(out);
	assert_false(kallsyms_disk_find(MODULES, &kept));
	/* kept again: the symlink replaced by a file; another boot's file, and
	 * a temporary file a killed report left a minute ago, go; a fresh
	 * temporary file (a report writing) and a name ringtrace never writes
	 * stay */
	snprintf(other, sizeof(other), "%s/kallsyms.00000000-0000-0000-0000-000000000000",
		 f->cache);
	assert_int_equal(tu_sh(&out, "cd %s && cp %s/copy %s && "
			       "cp %s/copy .kallsyms.00000000-0000-0000-0000-000000000000.123 && "
			       "touch -d '2 minutes ago' .kallsyms.00000000-0000-0000-0000-000000000000.123 && "
			       "cp %s/copy .kallsyms.00000000-0000-0000-0000-000000000000.456 && "
			       "cp %s/copy kallsyms.bak", f->cache, f->dir, other, f->dir, f->dir, f->dir), 0);
	free(out);
	kallsyms_disk_keep(MODULES, &f->table);
	assert_true(kallsyms_disk_find(MODULES, &kept));
	symtab_free(&kept);
	assert_int_equal(access(other, F_OK), -1);
	assert_int_equal(tu_sh(&out, "cd %s && LC_ALL=C ls -A | LC_ALL=C sort | tr '\\n' ' '",
			       f->cache), 0);
	/* (in the C locale's order, which the boot's id decides) */
	kept_name = strrchr(f->file, '/') + 1;
	if (strcmp(kept_name, "kallsyms.bak") < 0)
		snprintf(want, sizeof(want), ".kallsyms.00000000-0000-0000-0000-000000000000.456 %s "
			 "kallsyms.bak ", kept_name);
	else
		snprintf(want, sizeof(want), ".kallsyms.00000000-0000-0000-0000-000000000000.456 "
			 "kallsyms.bak %s ", kept_name);
	assert_string_equal(out, want);
	free(out);
}

static void test_directory_others_may_write_is_not_used(void **state)
{
	struct fixture *f = *state;
	char dir[PATH_MAX];
	struct symtab kept;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/open", f->dir);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	kallsyms_disk_configure(dir);
	assert_true(kallsyms_disk_on());
	kallsyms_disk_keep(MODULES, &f->table); /* a warning, once */
	assert_false(kallsyms_disk_on());
	assert_false(kallsyms_disk_find(MODULES, &kept));
	assert_int_equal(tu_sh(NULL, "ls %s | grep -q kallsyms", dir) != 0, 1);
	/* off: nothing read or written */
	kallsyms_disk_configure(NULL);
	assert_false(kallsyms_disk_on());
	kallsyms_disk_keep(MODULES, &f->table);
	assert_int_equal(stat(f->cache, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kept_table_finds_what_the_read_one_finds, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_spoiled_files_are_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_others_may_write_is_not_used, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
