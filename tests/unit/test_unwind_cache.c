/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_cache.c: unwind tables kept on disk read back as written; every
 * spoilt, foreign or misplaced file is a miss; the directory's checks; the
 * size budget: least recently used evicted first, the share of files keyed
 * by inode, nothing but the cache's own files removed. */
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/unwind_cache.h"
#include "record/unwind_cache_budget.h"
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
	c = unwind_cache_open(path, UNWIND_CACHE_DEFAULT_SIZE, err, sizeof(err));
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
	assert_null(unwind_cache_open(path, UNWIND_CACHE_DEFAULT_SIZE, err, sizeof(err)));
	assert_non_null(strstr(err, "--unwind-cache"));
	assert_int_equal(chmod(path, 0700), 0);
	/* through a symlink */
	assert_int_equal(tu_sh(&out, "ln -s %s/a %s/link", dir, dir), 0);
	free(out);
	snprintf(path, sizeof(path), "%s/link/b", dir);
	assert_null(unwind_cache_open(path, UNWIND_CACHE_DEFAULT_SIZE, err, sizeof(err)));
	/* up a directory */
	snprintf(path, sizeof(path), "%s/a/../a/b", dir);
	assert_null(unwind_cache_open(path, UNWIND_CACHE_DEFAULT_SIZE, err, sizeof(err)));
	assert_non_null(strstr(err, ".."));
	tu_rmtree(dir);
	free(dir);
}

/* A build-id names the table only of a file root owns that no one else may
 * write; any other is known by device, inode, mtime and size; one no path
 * names has no key. */
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
	/* deleted: no path names it, no later run finds it: no key */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unwind_cache_key_of(fd, &key), -1);
	close(fd);
	/* nor a memfd (the vdso's copy: a new inode each run) */
	fd = memfd_create("ringtrace-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_cache_key_of(fd, &key), -1);
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

/* Rows enough for an entry of several 4 KiB blocks. */
#define BIG_ROWS 1500u
static struct rt_unwind_row big[BIG_ROWS];

static struct unwind_cache *open_budget(const char *dir, char *path, size_t len, uint64_t budget)
{
	char err[512];
	struct unwind_cache *c;

	snprintf(path, len, "%s/cache", dir);
	c = unwind_cache_open(path, budget, err, sizeof(err));
	if (!c)
		fail_msg("%s", err);
	return c;
}

static int store_big(struct unwind_cache *c, const char *name)
{
	struct unwind_cache_key key = { .source = { .ino = 1 } };

	snprintf(key.name, sizeof(key.name), "%s", name);
	for (uint32_t i = 0; i < BIG_ROWS; i++)
		big[i] = (struct rt_unwind_row){ .pc = 0x1000 + 4 * i, .cfa_offset = 8,
						 .cfa = RT_CFA_RSP, .rbp = RT_RBP_SAME };
	return unwind_cache_store(c, &key, big, BIG_ROWS, 0);
}

static bool present(const char *path, const char *name)
{
	char file[PATH_MAX + 160];
	struct stat st;

	snprintf(file, sizeof(file), "%s/%s", path, name);
	return !lstat(file, &st);
}

/* The bytes an entry takes, as the budget counts them (whole blocks). */
static uint64_t entry_bytes(const char *path, const char *name)
{
	char file[PATH_MAX + 160];
	struct stat st;
	uint64_t size, blocks;

	snprintf(file, sizeof(file), "%s/%s", path, name);
	assert_int_equal(lstat(file, &st), 0);
	size = ((uint64_t)st.st_size + 4095) & ~(uint64_t)4095;
	blocks = (uint64_t)st.st_blocks * 512;
	return blocks > size ? blocks : size;
}

/* Sets name's mtime to sec seconds after the epoch. */
static void set_mtime(const char *path, const char *name, time_t sec)
{
	char file[PATH_MAX + 160];
	const struct timespec times[2] = { { .tv_sec = sec }, { .tv_sec = sec } };

	snprintf(file, sizeof(file), "%s/%s", path, name);
	assert_int_equal(utimensat(AT_FDCWD, file, times, AT_SYMLINK_NOFOLLOW), 0);
}

/* The bytes of the cache's own files in path (regular, ours, under its names). */
static uint64_t held(const char *path)
{
	char *out = NULL;
	uint64_t bytes = 0;

	assert_int_equal(tu_sh(&out, "cd %s && for f in b-* i-* .tmp-*; do [ -f \"$f\" ] && [ -O \"$f\" ] && "
				     "[ ! -L \"$f\" ] && echo \"$f\"; done; true", path), 0);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		bytes += entry_bytes(path, line);
	free(out);
	return bytes;
}

/* Past the budget, the entries read back least recently (the oldest mtime;
 * a hit sets it to now) go first, down to an eighth under it. */
static void test_budget_evicts_least_recently_used(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], err[512];
	struct unwind_cache_counts counts;
	struct rt_unwind_row *got = NULL;
	struct unwind_cache_key key = { .name = "b-01", .source = { .ino = 1 } };
	struct unwind_cache *c;
	uint64_t e;
	uint32_t nr;
	int64_t delta;

	(void)state;
	/* one entry's size first, for a budget of five */
	c = open_budget(dir, path, sizeof(path), UNWIND_CACHE_DEFAULT_SIZE);
	assert_int_equal(store_big(c, "b-01"), 0);
	e = entry_bytes(path, "b-01");
	unwind_cache_close(c);
	c = unwind_cache_open(path, 5 * e, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(store_big(c, "b-02"), 0);
	assert_int_equal(store_big(c, "b-03"), 0);
	assert_int_equal(store_big(c, "b-04"), 0);
	set_mtime(path, "b-01", 1000);
	set_mtime(path, "b-02", 2000);
	set_mtime(path, "b-03", 3000);
	set_mtime(path, "b-04", 4000);
	/* b-01, the oldest, is read: the most recent now */
	assert_int_equal(unwind_cache_load(c, &key, &got, &nr, &delta), 0);
	free(got);
	assert_int_equal(store_big(c, "b-05"), 0); /* five: the budget, no more */
	unwind_cache_counts(c, &counts);
	assert_int_equal(counts.evicted, 0);
	assert_int_equal(store_big(c, "b-06"), 0); /* six: room made for it */
	unwind_cache_counts(c, &counts);
	assert_int_equal(counts.evicted, 2);
	assert_int_equal(counts.evicted_bytes, 2 * e);
	assert_int_equal(counts.kept, 5);
	assert_false(present(path, "b-02"));
	assert_false(present(path, "b-03"));
	assert_true(present(path, "b-01"));
	assert_true(present(path, "b-04"));
	assert_true(present(path, "b-05"));
	assert_true(present(path, "b-06"));
	assert_true(held(path) <= 5 * e);
	/* an entry stored again replaces its own file, none other */
	assert_int_equal(store_big(c, "b-06"), 0);
	assert_true(present(path, "b-01") && present(path, "b-04") && present(path, "b-05"));
	/* one larger than the whole budget is not kept, and evicts nothing */
	unwind_cache_close(c);
	c = unwind_cache_open(path, e / 2, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(store_big(c, "b-07"), -1);
	unwind_cache_counts(c, &counts);
	assert_int_equal(counts.no_room, 1);
	assert_int_equal(counts.evicted, 0);
	assert_false(present(path, "b-07"));
	assert_true(present(path, "b-01"));
	unwind_cache_close(c);
	tu_rmtree(dir);
	free(dir);
}

/* A recording keeps at most a quarter of the budget for files keyed by
 * inode (users' files); the rest are not kept, and counted; root's (by
 * build-id) are not held back by them. */
static void test_budget_share_of_users_files(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], err[512], name[32];
	struct unwind_cache_counts counts;
	struct unwind_cache *c;
	uint64_t e;

	(void)state;
	c = open_budget(dir, path, sizeof(path), UNWIND_CACHE_DEFAULT_SIZE);
	assert_int_equal(store_big(c, "b-00"), 0);
	e = entry_bytes(path, "b-00");
	unwind_cache_close(c);
	c = unwind_cache_open(path, 8 * e, err, sizeof(err));
	assert_non_null(c);
	assert_int_equal(store_big(c, "i-1-10-1700000000.000000000-4096"), 0);
	assert_int_equal(store_big(c, "i-1-11-1700000000.000000000-4096"), 0);
	assert_int_equal(store_big(c, "i-1-12-1700000000.000000000-4096"), -1);
	assert_int_equal(store_big(c, "i-1-13-1700000000.000000000-4096"), -1);
	assert_int_equal(store_big(c, "b-01"), 0);
	assert_int_equal(store_big(c, "b-02"), 0);
	unwind_cache_counts(c, &counts);
	assert_int_equal(counts.over_share, 2);
	assert_int_equal(counts.kept, 4);
	assert_false(present(path, "i-1-12-1700000000.000000000-4096"));
	unwind_cache_close(c);
	/* the next recording has a share of its own; the budget still holds */
	c = unwind_cache_open(path, 8 * e, err, sizeof(err));
	assert_non_null(c);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "i-2-%x-1700000000.000000000-4096", i);
		assert_int_equal(store_big(c, name), i < 2 ? 0 : -1);
	}
	unwind_cache_close(c);
	/* the share counts files too: a quarter of those the cache holds */
	c = unwind_cache_open(path, 64 * UNWIND_CACHE_MAX_ENTRIES * e, err, sizeof(err));
	assert_non_null(c);
	for (int i = 0; i <= UNWIND_CACHE_MAX_ENTRIES / UNWIND_CACHE_SHARE_DIVISOR; i++) {
		struct unwind_cache_key key = { .source = { .ino = 1 } };

		snprintf(key.name, sizeof(key.name), "i-3-%x-1700000000.000000000-4096", i);
		assert_int_equal(unwind_cache_store(c, &key, rows, NR_ROWS, 0),
				 i < UNWIND_CACHE_MAX_ENTRIES / UNWIND_CACHE_SHARE_DIVISOR ? 0 : -1);
	}
	unwind_cache_counts(c, &counts);
	assert_int_equal(counts.over_share, 1);
	unwind_cache_close(c);
	tu_rmtree(dir);
	free(dir);
}

/* What is not a regular file of ours under our naming is never removed nor
 * followed (a symlink, a directory, a FIFO, another owner's file, another
 * name); a temporary file a killed recording left is, once it is a minute
 * old; the directory holds at most UNWIND_CACHE_MAX_ENTRIES of ours. */
static void test_budget_leaves_foreign_files(void **state)
{
	char *dir = tu_tempdir(), path[PATH_MAX], err[512], *out = NULL, name[32];
	struct unwind_cache_counts counts;
	struct unwind_cache *c;
	uint64_t e;

	(void)state;
	c = open_budget(dir, path, sizeof(path), UNWIND_CACHE_DEFAULT_SIZE);
	assert_int_equal(store_big(c, "b-00"), 0);
	e = entry_bytes(path, "b-00");
	unwind_cache_close(c);
	assert_int_equal(tu_sh(&out, "cd %s && head -c 100000 /dev/zero > %s/target && "
				     "ln -s %s/target b-aa && mkdir b-bb && mkfifo b-cc && "
				     "head -c 100000 /dev/zero > b-dd && chown 65534 b-dd && "
				     "head -c 100000 /dev/zero > notes && head -c 1000 /dev/zero > .tmp-1-1 && "
				     "head -c 1000 /dev/zero > .tmp-1-2 && "
				     "touch -h -d '2000-01-01' b-aa b-bb b-cc b-dd notes .tmp-1-1 %s/target",
			       path, dir, dir, dir), 0);
	free(out);
	set_mtime(path, "b-00", 1700000000);
	c = unwind_cache_open(path, 4 * e, err, sizeof(err));
	assert_non_null(c);
	for (int i = 1; i <= 8; i++) {
		snprintf(name, sizeof(name), "b-%02x", i);
		assert_int_equal(store_big(c, name), 0);
		set_mtime(path, name, 1700000000 + i);
	}
	unwind_cache_counts(c, &counts);
	assert_true(counts.evicted >= 5);
	assert_true(held(path) <= 4 * e + entry_bytes(path, ".tmp-1-2"));
	assert_false(present(path, "b-00"));
	assert_false(present(path, ".tmp-1-1")); /* a killed recording's, long ago */
	assert_true(present(path, ".tmp-1-2"));  /* perhaps being written now */
	assert_true(present(path, "b-08"));
	assert_int_equal(tu_sh(&out, "cd %s && test -L b-aa && test -d b-bb && test -p b-cc && "
				     "test -f b-dd && test -f notes && test -f %s/target && "
				     "test $(stat -c %%s %s/target) = 100000",
			       path, dir, dir), 0);
	free(out);
	unwind_cache_close(c);
	/* at most UNWIND_CACHE_MAX_ENTRIES files, however small */
	c = unwind_cache_open(path, UNWIND_CACHE_DEFAULT_SIZE, err, sizeof(err));
	assert_non_null(c);
	for (int i = 0; i < UNWIND_CACHE_MAX_ENTRIES + 100; i++) {
		struct unwind_cache_key key = { .source = { .ino = 1 } };

		snprintf(key.name, sizeof(key.name), "b-%04x", 0x1000 + i);
		assert_int_equal(unwind_cache_store(c, &key, rows, NR_ROWS, 0), 0);
	}
	unwind_cache_counts(c, &counts);
	assert_true(counts.evicted >= 100);
	assert_int_equal(tu_sh(&out, "ls -A %s | grep -c '^b-[0-9a-f]*$'", path), 0);
	assert_true(atoi(out) <= UNWIND_CACHE_MAX_ENTRIES);
	free(out);
	assert_true(present(path, "b-aa") && present(path, "b-bb") && present(path, "b-dd"));
	unwind_cache_close(c);
	tu_rmtree(dir);
	free(dir);
}

static void test_our_names(void **state)
{
	(void)state;
	assert_true(cache_budget_our_name("b-0123abcdef"));
	assert_true(cache_budget_our_name("i-803-1a2b-1700000000.000000000-4096"));
	assert_true(cache_budget_our_name(".tmp-123-4"));
	assert_false(cache_budget_our_name("b-"));
	assert_false(cache_budget_our_name("b-XYZ"));
	assert_false(cache_budget_our_name("i-../x"));
	assert_false(cache_budget_our_name(".tmp-1-2.swp"));
	assert_false(cache_budget_our_name("notes"));
	assert_false(cache_budget_our_name("."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_back_and_misses),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_table_is_its_files),
		cmocka_unit_test(test_budget_evicts_least_recently_used),
		cmocka_unit_test(test_budget_share_of_users_files),
		cmocka_unit_test(test_budget_leaves_foreign_files),
		cmocka_unit_test(test_our_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
