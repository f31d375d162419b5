/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unlinked_copies.c: mapped files held open and copied under their
 * build-id once unlinked (told by an inotify watch on the inode, or by a
 * stat at each check where none could be put), or replaced by a rename; a
 * user's refused; the least recently mapped let go past the count; a flight
 * recording's copies kept within their budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/build_id_cache.h"
#include "symbols/elf_name_ranges.h"
#include "symbols/symbols.h"
#include "symbols/unlinked_copies.h"
#include "test_util.h"

static char *dir;
static int dirfd;

static int setup(void **state)
{
	(void)state;
	dir = tu_tempdir();
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dirfd < 0;
}

static int teardown(void **state)
{
	(void)state;
	close(dirfd);
	tu_rmtree(dir);
	free(dir);
	return 0;
}

/* An ELF file of its own build-id at dir/name (this test's binary, copied),
 * opened, and m a mapping of it; its size. */
static off_t elf_file(const char *name, struct perf_mmap *m, int *fd)
{
	char path[512];
	struct stat st;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(tu_sh(NULL, "cp /proc/%d/exe %s && chmod 0755 %s", (int)getpid(), path,
			       path),
			 0);
	tu_unique_build_id(path);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(*fd >= 0);
	assert_int_equal(fstat(*fd, &st), 0);
	memset(m, 0, sizeof(*m));
	m->maj = major(st.st_dev);
	m->min = minor(st.st_dev);
	m->ino = st.st_ino;
	m->filename = name;
	len = build_id_read(*fd, m->build_id);
	assert_true(len > 0);
	m->build_id_size = (uint8_t)len;
	return st.st_size;
}

/* Whether the copy of m's build-id is in dir, of size bytes. */
static bool copied(const struct perf_mmap *m, off_t size)
{
	char id[48], path[512];
	struct stat st;

	build_id_path(id, sizeof(id), NULL, m->build_id, m->build_id_size, "");
	snprintf(path, sizeof(path), "%s/%s/%s", dir, BUILD_ID_CACHE_DIR, id);
	return !stat(path, &st) && st.st_size == size;
}

/* The bytes a copy of dir/name keeps: what its names need. */
static uint64_t name_bytes(const char *name)
{
	struct file_range r[ELF_NAME_RANGES_MAX];
	char path[512];
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	n = elf_name_ranges(fd, (uint64_t)st.st_size, r, ELF_NAME_RANGES_MAX);
	close(fd);
	assert_true(n > 0);
	return file_ranges_bytes(r, (size_t)n);
}

static void unlink_file(const char *name)
{
	assert_int_equal(unlinkat(dirfd, name, 0), 0);
}

static void test_copied_once_unlinked(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 30);
	struct unlinked_copies u;
	struct perf_mmap m;
	int fd;
	off_t size = elf_file("a", &m, &fd);

	(void)state;
	unlinked_copies_init(&u, dirfd, c);
	unlinked_copies_note(&u, &m, fd);
	close(fd);
	unlinked_copies_check(&u);
	assert_int_equal(u.totals.held, 1);
	assert_int_equal(u.unwatched, 0); /* its inode watched: no stat at each check */
	assert_int_equal(u.totals.copied, 0); /* still linked */
	unlink_file("a");
	unlinked_copies_check(&u);
	assert_int_equal(u.held.len, 0); /* let go once unlinked */
	assert_int_equal(file_copies_start(c), 0);
	file_copies_finish(c);
	if (geteuid() == 0) {
		char id[48], path[512];
		struct symtab t;
		bool named = false;

		assert_int_equal(u.totals.copied, 1);
		assert_true(copied(&m, size));
		/* the copy (its names' bytes, the rest a hole) names this
		 * program's functions */
		build_id_path(id, sizeof(id), NULL, m.build_id, m.build_id_size, "");
		snprintf(path, sizeof(path), "%s/%s/%s", dir, BUILD_ID_CACHE_DIR, id);
		assert_int_equal(symtab_load_elf(&t, path, NULL, 0), 0);
		for (size_t i = 0; i < t.nr; i++)
			named |= !strcmp(t.syms[i].name, "test_copied_once_unlinked");
		symtab_free(&t);
		assert_true(named);
	} else {
		/* a user's file: its build-id could be forged */
		assert_int_equal(u.totals.not_trusted, 1);
		assert_false(copied(&m, size));
	}
	unlinked_copies_free(&u);
	file_copies_free(c);
}

/* A file replaced by a rename over it is let go as unlinked, told by its
 * watch; one no watch could be put on (here: no inotify) by a stat at
 * each check. */
static void test_renamed_over_and_unwatched(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 30);
	struct unlinked_copies u;
	struct perf_mmap a, b;
	int fa, fb, fc;

	(void)state;
	elf_file("a", &a, &fa);
	elf_file("b", &b, &fb);
	unlinked_copies_init(&u, dirfd, c);
	unlinked_copies_note(&u, &a, fa);
	close(fa);
	fc = openat(dirfd, "a.new", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fc >= 0);
	close(fc);
	assert_int_equal(renameat(dirfd, "a.new", dirfd, "a"), 0);
	unlinked_copies_check(&u);
	assert_int_equal(u.held.len, 0);
	/* no inotify: polled */
	close(u.inotify_fd);
	u.inotify_fd = -1;
	unlinked_copies_note(&u, &b, fb);
	close(fb);
	assert_int_equal(u.unwatched, 1);
	unlinked_copies_check(&u);
	assert_int_equal(u.held.len, 1);
	unlink_file("b");
	unlinked_copies_check(&u);
	assert_int_equal(u.held.len, 0);
	assert_int_equal(u.unwatched, 0);
	unlinked_copies_free(&u);
	file_copies_free(c);
}

static void test_least_recent_let_go(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 30);
	struct unlinked_copies u;
	struct perf_mmap a, b;
	int fa, fb;

	(void)state;
	elf_file("a", &a, &fa);
	elf_file("b", &b, &fb);
	unlinked_copies_init(&u, dirfd, c);
	u.max_held = 1;
	unlinked_copies_note(&u, &a, fa);
	unlinked_copies_note(&u, &b, fb);
	close(fa);
	close(fb);
	assert_int_equal(u.held.len, 1);
	assert_int_equal(u.totals.let_go, 1);
	unlinked_copies_free(&u);
	file_copies_free(c);
}

static void test_flight_budget_removes_oldest(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 30);
	struct file_copies_totals t;
	struct unlinked_copies u;
	struct perf_mmap a, b;
	int fa, fb;
	off_t sa, sb;
	uint64_t ba, bb;

	(void)state;
	if (geteuid())
		skip(); /* a user's files are never copied (above) */
	sa = elf_file("a", &a, &fa);
	sb = elf_file("b", &b, &fb);
	ba = name_bytes("a");
	bb = name_bytes("b");
	print_message("copies of %lld and %lld bytes keep %llu and %llu\n", (long long)sa,
		      (long long)sb, (unsigned long long)ba, (unsigned long long)bb);
	assert_true(ba < (uint64_t)sa && bb < (uint64_t)sb);
	unlinked_copies_init(&u, dirfd, c);
	unlinked_copies_keep_within(&u, NULL, ba + bb - 1);
	assert_int_equal(file_copies_start(c), 0);
	unlinked_copies_note(&u, &a, fa);
	unlinked_copies_note(&u, &b, fb);
	close(fa);
	close(fb);
	unlink_file("a");
	unlinked_copies_check(&u);
	unlink_file("b");
	unlinked_copies_check(&u);
	file_copies_finish(c);
	file_copies_get_totals(c, &t);
	assert_int_equal(u.totals.copied, 2);
	assert_int_equal(u.totals.removed, 1);
	assert_int_equal(u.totals.removed_bytes, ba);
	assert_int_equal(t.removed, 1);
	assert_int_equal(t.bytes, bb); /* a's bytes given back */
	assert_false(copied(&a, sa));
	assert_true(copied(&b, sb));
	unlinked_copies_free(&u);
	file_copies_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copied_once_unlinked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renamed_over_and_unwatched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_least_recent_let_go, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flight_budget_removes_oldest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
