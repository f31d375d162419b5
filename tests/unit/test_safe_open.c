/* SPDX-License-Identifier: GPL-2.0-only */
/* test_safe_open.c: the safe-open helper refuses, at once, a FIFO, a symlink, a
 * directory and a device; opens a regular file; reads no more than asked;
 * resolves inside a root without links; names a mapping's own inode; keeps
 * what a pass opened for later passes asking for that inode only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys/safe_open.h"
#include "test_util.h"

static char *dir;

static int setup(void **state)
{
	(void)state;
	dir = tu_tempdir();
	/* a refusal must come at once: a blocked open ends the test here */
	alarm(20);
	return dir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	tu_rmtree(dir);
	free(dir);
	dir = NULL;
	return 0;
}

static void in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void expect_refused(const char *path, unsigned int flags, int err)
{
	struct stat st;
	int fd = safe_openat(AT_FDCWD, path, flags, &st);

	if (fd >= 0)
		close(fd);
	assert_int_equal(fd, -err);
	assert_int_equal(errno, err);
	assert_true(safe_open_refused(err));
}

static void test_regular_file_opens(void **state)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	tu_write_file(dir, "file", "hello", 5);
	in_dir(path, sizeof(path), "file");
	fd = safe_openat(AT_FDCWD, path, 0, &st);
	assert_true(fd >= 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 5);
	/* read-only, close-on-exec */
	assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* relative to a directory fd too */
	{
		int dfd = open(dir, O_RDONLY | O_DIRECTORY);

		fd = safe_openat(dfd, "file", 0, NULL);
		assert_true(fd >= 0);
		close(fd);
		close(dfd);
	}
}

static void test_fifo_refused_without_blocking(void **state)
{
	char path[PATH_MAX];

	(void)state;
	in_dir(path, sizeof(path), "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_refused(path, 0, EINVAL);
	expect_refused(path, SAFE_OPEN_FOLLOW, EINVAL);
}

static void test_symlink_refused_unless_followed(void **state)
{
	char path[PATH_MAX], target[PATH_MAX], fifo[PATH_MAX];
	int fd;

	(void)state;
	tu_write_file(dir, "target", "x", 1);
	in_dir(target, sizeof(target), "target");
	in_dir(path, sizeof(path), "link");
	assert_int_equal(symlink(target, path), 0);
	expect_refused(path, 0, ELOOP);
	fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL);
	assert_true(fd >= 0);
	close(fd);
	/* followed, it still must lead to a regular file */
	in_dir(fifo, sizeof(fifo), "fifo");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	in_dir(path, sizeof(path), "link-to-fifo");
	assert_int_equal(symlink(fifo, path), 0);
	expect_refused(path, SAFE_OPEN_FOLLOW, EINVAL);
}

static void test_directory_and_device_refused(void **state)
{
	(void)state;
	expect_refused(dir, 0, EISDIR);
	expect_refused("/dev/null", 0, EINVAL);
	expect_refused("/dev/null", SAFE_OPEN_FOLLOW, EINVAL);
	/* a magic link of /proc: refused as a symlink unless followed */
	expect_refused("/proc/self/exe", 0, ELOOP);
}

static void test_reads_are_bounded(void **state)
{
	char path[PATH_MAX], buf[8], big[64];
	ssize_t n;
	int fd;

	(void)state;
	tu_write_file(dir, "long", "0123456789abcdefghij", 20);
	in_dir(path, sizeof(path), "long");
	memset(buf, 'Z', sizeof(buf));
	n = safe_read_file(AT_FDCWD, path, buf, sizeof(buf));
	assert_int_equal(n, 7);
	assert_string_equal(buf, "0123456");
	fd = safe_openat(AT_FDCWD, path, 0, NULL);
	assert_true(fd >= 0);
	memset(big, 0, sizeof(big));
	assert_int_equal(safe_pread(fd, big, 4, 10), 4);
	assert_memory_equal(big, "abcd", 4);
	assert_int_equal(big[4], 0);
	/* at the end of the file: what there is */
	assert_int_equal(safe_pread(fd, big, sizeof(big), 15), 5);
	close(fd);
	/* a /proc file, as the side-band reads them */
	n = safe_read_file(AT_FDCWD, "/proc/self/comm", big, sizeof(big));
	assert_true(n > 0);
	assert_non_null(strstr(big, "test_safe_open"));
	/* a FIFO as a pid file: refused, not waited on */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(safe_read_file(AT_FDCWD, path, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_null(safe_fopen(path));
}

static void test_in_root_never_leaves_nor_follows(void **state)
{
	char path[PATH_MAX];
	int root, fd;

	(void)state;
	in_dir(path, sizeof(path), "root");
	assert_int_equal(mkdir(path, 0700), 0);
	root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(root >= 0);
	in_dir(path, sizeof(path), "root/bin");
	assert_int_equal(mkdir(path, 0700), 0);
	in_dir(path, sizeof(path), "root/bin");
	tu_write_file(path, "prog", "\177ELF", 4);
	fd = safe_open_in_root(root, "/bin/prog", NULL);
	if (fd < 0 && errno == ENOSYS)
		tu_skip("openat2 is missing: Linux 5.6 or later has it");
	assert_true(fd >= 0);
	close(fd);
	/* an absolute symlink to a host file */
	in_dir(path, sizeof(path), "root/bin/shadow");
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(safe_open_in_root(root, "/bin/shadow", NULL), -ELOOP);
	assert_int_equal(errno, ELOOP);
	/* a symlink on the way */
	in_dir(path, sizeof(path), "root/usr");
	assert_int_equal(symlink("/bin", path), 0);
	assert_int_equal(safe_open_in_root(root, "/usr/prog", NULL), -ELOOP);
	assert_int_equal(errno, ELOOP);
	/* ".." stops at the root */
	assert_int_equal(safe_open_in_root(root, "/../../../../../../etc/passwd", NULL), -ENOENT);
	assert_int_equal(errno, ENOENT);
	fd = safe_open_in_root(root, "/../../bin/prog", NULL);
	assert_true(fd >= 0);
	close(fd);
	/* a FIFO inside */
	in_dir(path, sizeof(path), "root/bin/fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(safe_open_in_root(root, "/bin/fifo", NULL), -EINVAL);
	assert_int_equal(errno, EINVAL);
	close(root);
}

/* A file this process maps executable, then deletes; an impostor takes its
 * name and "NAME (deleted)", a FIFO too: the mapping's file is opened only
 * as the mapped inode itself (/proc/self/map_files, with CAP_SYS_ADMIN), or
 * not at all. */
static void test_mapping_names_its_own_inode(void **state)
{
	char path[PATH_MAX], deleted[PATH_MAX + 16];
	struct safe_file_id id;
	struct stat st, got;
	void *map;
	int fd;

	(void)state;
	tu_write_file(dir, "mapped", "\177ELF original", 13);
	in_dir(path, sizeof(path), "mapped");
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		tu_skip("cannot map a file executable in %s (noexec?): %s", dir, strerror(errno));
	id = (struct safe_file_id){ major(st.st_dev), minor(st.st_dev), (uint64_t)st.st_ino };
	/* still in place: it opens (map_files, or the path inside our root) */
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)map, (uintptr_t)map + 4096, path, &id,
			       &got);
	assert_true(fd >= 0);
	assert_int_equal(got.st_ino, st.st_ino);
	close(fd);
	/* replaced */
	assert_int_equal(unlink(path), 0);
	tu_write_file(dir, "mapped", "\177ELF impostor", 13);
	snprintf(deleted, sizeof(deleted), "%s (deleted)", path);
	assert_int_equal(mkfifo(deleted, 0600), 0);
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)map, (uintptr_t)map + 4096, deleted, &id,
			       &got);
	if (fd >= 0) {
		assert_int_equal(got.st_ino, st.st_ino);
		close(fd);
	}
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)map, (uintptr_t)map + 4096, path, &id,
			       &got);
	if (fd >= 0) {
		assert_int_equal(got.st_ino, st.st_ino);
		close(fd);
	}
	print_message("through map_files: %s\n", fd >= 0 ? "yes" : "no (not privileged)");
	/* a mapping that is gone: not looked up by a path that names another */
	assert_int_equal(munmap(map, 4096), 0);
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)map, (uintptr_t)map + 4096, path, &id,
			       NULL);
	assert_true(fd < 0);
}

/* Maps name (its content) executable: the mapping, *id and *st. */
static void *map_file(const char *name, const char *content, struct safe_file_id *id,
		      struct stat *st)
{
	char path[PATH_MAX];
	void *map;
	int fd;

	tu_write_file(dir, name, content, strlen(content));
	in_dir(path, sizeof(path), name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, st), 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		tu_skip("cannot map a file executable in %s (noexec?): %s", dir, strerror(errno));
	*id = (struct safe_file_id){ major(st->st_dev), minor(st->st_dev), (uint64_t)st->st_ino };
	return map;
}

/* What a pass opened through map_files is kept: a later pass asking for the
 * same inode gets it without opening anything (here, once the mapping is
 * gone), one asking by range alone or for another inode does not; closed,
 * nothing is kept. */
static void test_kept_by_inode(void **state)
{
	struct safe_file_id a_id, b_id;
	struct stat a, b, got;
	char link[96], target[PATH_MAX], path[PATH_MAX];
	void *ma, *mb;
	int fd;

	(void)state;
	safe_open_mappings_forget();
	ma = map_file("a", "\177ELF a", &a_id, &a);
	mb = map_file("b", "\177ELF b", &b_id, &b);
	snprintf(link, sizeof(link), "/proc/self/map_files/%llx-%llx",
		 (unsigned long long)(uintptr_t)ma, (unsigned long long)(uintptr_t)ma + 4096);
	if (readlink(link, target, sizeof(target)) < 0) {
		munmap(ma, 4096);
		munmap(mb, 4096);
		tu_skip("map_files is closed to this process (%s): nothing is kept", strerror(errno));
	}
	in_dir(path, sizeof(path), "a");
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)ma, (uintptr_t)ma + 4096, path,
			       &a_id, &got);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(munmap(ma, 4096), 0);
	assert_int_equal(unlink(path), 0);
	safe_open_mappings_forget();
	/* the range alone, in a later pass: not what another pass opened */
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)ma, (uintptr_t)ma + 4096, path, NULL,
			       NULL);
	assert_true(fd < 0);
	/* the inode: the descriptor kept, though the file is gone */
	memset(&got, 0, sizeof(got));
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)ma, (uintptr_t)ma + 4096, path,
			       &a_id, &got);
	assert_true(fd >= 0);
	assert_int_equal(got.st_ino, a.st_ino);
	close(fd);
	/* another inode is its own mapping's, never the one kept */
	in_dir(path, sizeof(path), "b");
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)mb, (uintptr_t)mb + 4096, path,
			       &b_id, &got);
	assert_true(fd >= 0);
	assert_int_equal(got.st_ino, b.st_ino);
	close(fd);
	/* closed: nothing kept */
	safe_open_mappings_close();
	in_dir(path, sizeof(path), "a");
	fd = safe_open_mapping((uint32_t)getpid(), (uintptr_t)ma, (uintptr_t)ma + 4096, path,
			       &a_id, NULL);
	assert_true(fd < 0);
	munmap(mb, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_file_opens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_refused_without_blocking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused_unless_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_and_device_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reads_are_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_root_never_leaves_nor_follows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mapping_names_its_own_inode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kept_by_inode, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
