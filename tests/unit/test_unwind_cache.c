/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_cache.c: unwind tables kept on disk read back as written; every
 * spoilt, foreign or misplaced file is a miss; the directory's checks. */
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

#include "record/unwind_cache.h"
#include "test_util.h"

static const struct rt_unwind_row rows[] = {
	{ .pc = 0x1000, .cfa_offset = 8, .cfa = RT_CFA_RSP, .rbp = RT_RBP_SAME },
	{ .pc = 0x1004, .cfa_offset = 16, .rbp_offset = -16, .cfa = RT_CFA_RSP, .rbp = RT_RBP_SAVED },
	{ .pc = 0x1010, .cfa_offset = 16, .rbp_offset = -16, .cfa = RT_CFA_RBP, .rbp = RT_RBP_SAVED },
	{ .pc = 0x1040, .cfa = RT_CFA_NONE, .rbp = RT_RBP_SAME },
};
#define NR_ROWS (uint32_t)(sizeof(rows) / sizeof(rows[0]))

static struct unwind_cache *open_cache(const char *dir, char *path, size_t len)
{
	char err[512];
	struct unwind_cache *c;

	snprintf(path, len, "%s/a/b", dir);
	c = unwind_cache_open(path, err, sizeof(err));
	if (!c)
		fail_msg("%s", err);
	return c;
}

static bool loads(struct unwind_cache *c, const struct unwind_cache_key *key)
{
	struct rt_unwind_row *got = NULL;
	uint32_t nr = 0;
	int64_t delta = 0;

	if (unwind_cache_load(c, key, &got, &nr, &delta))
		return false;
	assert_int_equal(nr, NR_ROWS);
	assert_int_equal(delta, -0x1000);
	assert_memory_equal(got, rows, sizeof(rows));
	free(got);
	return true;
}

static void spoil(const char *cmd)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "%s", cmd), 0);
	free(out);
}

static void test_read_back_and_misses(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], file[PATH_MAX + 64], *out = NULL;
	struct unwind_cache_key key = { .name = "b-0123abcd" }, other = { .name = "b-4567" };
	struct unwind_cache *c;
	struct stat st;

	(void)state;
	c = open_cache(dir, path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_false(loads(c, &key)); /* nothing yet */
	assert_int_equal(unwind_cache_store(c, &key, rows, NR_ROWS, -0x1000), 0);
	snprintf(file, sizeof(file), "%s/%s", path, key.name);
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(loads(c, &key));
	/* the file under another key's name: its header names its own */
	assert_int_equal(tu_sh(&out, "cp -p %s %s/%s", file, path, other.name), 0);
	free(out);
	assert_false(loads(c, &other));
	/* writable by others */
	assert_int_equal(chmod(file, 0666), 0);
	assert_false(loads(c, &key));
	assert_int_equal(chmod(file, 0600), 0);
	assert_true(loads(c, &key));
	/* a symlink to a good file */
	assert_int_equal(tu_sh(&out, "cd %s && mv %s good && ln -s good %s", path, key.name, key.name), 0);
	free(out);
	assert_false(loads(c, &key));
	/* stored again: the link replaced by a file */
	assert_int_equal(unwind_cache_store(c, &key, rows, NR_ROWS, -0x1000), 0);
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_true(loads(c, &key));
	/* a row's byte flipped, the file cut short, one byte more, another
	 * magic, another version */
	static const char *const spoilers[] = {
		"printf '\\377' | dd of=%s bs=1 seek=230 conv=notrunc 2>/dev/null",
		"truncate -s -1 %s",
		"printf x >> %s",
		"printf X | dd of=%s bs=1 seek=0 conv=notrunc 2>/dev/null",
		"printf '\\377' | dd of=%s bs=1 seek=8 conv=notrunc 2>/dev/null",
	};
	for (size_t i = 0; i < sizeof(spoilers) / sizeof(spoilers[0]); i++) {
		char cmd[PATH_MAX + 256];

		assert_int_equal(unwind_cache_store(c, &key, rows, NR_ROWS, -0x1000), 0);
		assert_true(loads(c, &key));
		snprintf(cmd, sizeof(cmd), spoilers[i], file);
		spoil(cmd);
		assert_false(loads(c, &key));
	}
	/* no temporary file left behind */
	assert_int_equal(tu_sh(&out, "ls -A %s | grep -c '^\\.tmp' || true", path), 0);
	assert_int_equal(atoi(out), 0);
	free(out);
	unwind_cache_close(c);
	tu_rmtree(dir);
	free(dir);
}

static void test_directory_refused(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], err[512], *out = NULL;
	struct unwind_cache *c;

	(void)state;
	c = open_cache(dir, path, sizeof(path));
	unwind_cache_close(c);
	/* writable by others */
	assert_int_equal(chmod(path, 0777), 0);
	assert_null(unwind_cache_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, "--unwind-cache"));
	assert_int_equal(chmod(path, 0700), 0);
	/* through a symlink */
	assert_int_equal(tu_sh(&out, "ln -s %s/a %s/link", dir, dir), 0);
	free(out);
	snprintf(path, sizeof(path), "%s/link/b", dir);
	assert_null(unwind_cache_open(path, err, sizeof(err)));
	/* up a directory */
	snprintf(path, sizeof(path), "%s/a/../a/b", dir);
	assert_null(unwind_cache_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, ".."));
	tu_rmtree(dir);
	free(dir);
}

/* A build-id names the table only of a file root owns that no one else may
 * write; any other is known by device, inode, mtime and size. */
static void test_keys(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX + 16], *out = NULL;
	struct unwind_cache_key key;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/prog", dir);
	assert_int_equal(tu_sh(&out, "cp /bin/true %s && chmod 0755 %s", path, path), 0);
	free(out);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_cache_key_of(fd, &key), 0);
	assert_true(!strncmp(key.name, geteuid() == 0 ? "b-" : "i-", 2));
	assert_int_equal(fchmod(fd, 0777), 0);
	assert_int_equal(unwind_cache_key_of(fd, &key), 0);
	assert_true(!strncmp(key.name, "i-", 2));
	close(fd);
	tu_rmtree(dir);
	free(dir);
}

/* A build-id names a table; only the file it was compiled from (device,
 * inode, change time, size) reads it back: not a copy of the same build-id,
 * not the same file changed since. */
static void test_table_is_its_files(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], a[PATH_MAX + 16], b[PATH_MAX + 16], *out = NULL;
	struct unwind_cache_key key_a, key_b;
	struct unwind_cache *c;
	int fa, fb;

	(void)state;
	c = open_cache(dir, path, sizeof(path));
	snprintf(a, sizeof(a), "%s/a.elf", dir);
	snprintf(b, sizeof(b), "%s/b.elf", dir);
	assert_int_equal(tu_sh(&out, "cp /bin/true %s && cp /bin/true %s && chmod 0755 %s %s", a, b, a,
			       b), 0);
	free(out);
	fa = open(a, O_RDONLY | O_CLOEXEC);
	fb = open(b, O_RDONLY | O_CLOEXEC);
	assert_true(fa >= 0 && fb >= 0);
	assert_int_equal(unwind_cache_key_of(fa, &key_a), 0);
	assert_int_equal(unwind_cache_key_of(fb, &key_b), 0);
	if (geteuid() == 0) /* both named by the build-id they share */
		assert_string_equal(key_a.name, key_b.name);
	/* (as root, b's key names a's file: the one name they share) */
	memcpy(key_b.name, key_a.name, sizeof(key_b.name));
	assert_int_equal(unwind_cache_store(c, &key_a, rows, NR_ROWS, -0x1000), 0);
	assert_true(loads(c, &key_a));
	assert_false(loads(c, &key_b));
	/* the same file, changed since (its change time) */
	assert_int_equal(fchmod(fa, 0700), 0);
	assert_int_equal(unwind_cache_key_of(fa, &key_b), 0);
	assert_false(loads(c, &key_b));
	close(fa);
	close(fb);
	unwind_cache_close(c);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_back_and_misses),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_table_is_its_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
