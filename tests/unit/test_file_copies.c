/* SPDX-License-Identifier: GPL-2.0-only */
/* test_file_copies.c: the thread that copies files and writes bytes handed
 * over into a recording's directory: copies whole and 0600, holes kept,
 * nothing replaced unless asked, bytes appended where asked, the byte budget refusing what would pass
 * it (counted), and what is queued when the thread is given up freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/file_copies.h"

static char dir[64];
static int dirfd;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_file_copies.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	close(dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

/* name's bytes in dir (up to size), their number returned; st its stat. */
static ssize_t read_back(const char *name, char *buf, size_t size, struct stat *st)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	assert_int_equal(fstat(fd, st), 0);
	n = read(fd, buf, size);
	close(fd);
	return n;
}

static char *dup_text(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

static void test_bytes_written_as_copies_are(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 20);
	struct file_copies_totals t;
	char buf[256];
	struct stat st;
	ssize_t n;

	(void)state;
	assert_non_null(c);
	/* queued before the thread starts: written once it does */
	assert_int_equal(file_copies_submit_bytes(c, dup_text("1000 10 first\n"), 14, "perf-1.map",
						  false), 0);
	assert_int_equal(file_copies_start(c), 0);
	/* not over the first (a JIT's own map), unless asked */
	assert_int_equal(file_copies_submit_bytes(c, dup_text("2000 10 second\n"), 15, "perf-1.map",
						  false), 0);
	assert_int_equal(file_copies_submit_bytes(c, dup_text("3000 10 third\n"), 14, "perf-2.map",
						  false), 0);
	assert_int_equal(file_copies_submit_bytes(c, dup_text("4000 10 fourth\n"), 15, "perf-2.map",
						  true), 0);
	file_copies_finish(c);
	n = read_back("perf-1.map", buf, sizeof(buf), &st);
	assert_int_equal(n, 14);
	assert_memory_equal(buf, "1000 10 first\n", 14);
	assert_int_equal(st.st_mode & 07777, 0600);
	n = read_back("perf-2.map", buf, sizeof(buf), &st);
	assert_int_equal(n, 15);
	assert_memory_equal(buf, "4000 10 fourth\n", 15);
	assert_int_equal(read_back("perf-1.map.tmp", buf, sizeof(buf), &st), -1);
	file_copies_get_totals(c, &t);
	assert_int_equal(t.copied, 3);
	assert_int_equal(t.bytes, 14 + 14 + 15);
	assert_int_equal(t.failed, 0); /* the one not replaced is no failure */
	file_copies_free(c);
}

/* A temporary file a copy given up left (here a symlink out of the
 * directory) is replaced, never written through. */
static void test_leftover_temporary_replaced(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 20);
	char outside[96], buf[64];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(c);
	snprintf(outside, sizeof(outside), "%s.outside", dir);
	fd = open(outside, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "kept\n", 5), 5);
	close(fd);
	assert_int_equal(symlinkat(outside, dirfd, "perf-3.map.tmp"), 0);
	assert_int_equal(file_copies_start(c), 0);
	assert_int_equal(file_copies_submit_bytes(c, dup_text("5000 10 fifth\n"), 14, "perf-3.map",
						  false), 0);
	file_copies_finish(c);
	assert_int_equal(read_back("perf-3.map", buf, sizeof(buf), &st), 14);
	assert_memory_equal(buf, "5000 10 fifth\n", 14);
	assert_true(S_ISREG(st.st_mode));
	fd = open(outside, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	assert_memory_equal(buf, "kept\n", 5);
	unlink(outside);
	assert_int_equal(read_back("perf-3.map.tmp", buf, sizeof(buf), &st), -1);
	file_copies_free(c);
}

/* Bytes appended: after the file a copy made (a JIT's map, then the names
 * of CPython's frames), or in a file of their own, 0600; never through a
 * symlink. */
static void test_bytes_appended(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 20);
	struct file_copies_totals t;
	char buf[256];
	struct stat st;
	ssize_t n;

	(void)state;
	assert_non_null(c);
	assert_int_equal(file_copies_start(c), 0);
	assert_int_equal(file_copies_submit_bytes(c, dup_text("1000 10 jit\n"), 12, "perf-1.map",
						  true), 0);
	assert_int_equal(file_copies_append_bytes(c, dup_text("2000 10 named\n"), 14, "perf-1.map"),
			 0);
	assert_int_equal(file_copies_append_bytes(c, dup_text("3000 10 alone\n"), 14, "perf-2.map"),
			 0);
	assert_int_equal(symlinkat("/tmp/test_file_copies_nowhere", dirfd, "perf-3.map"), 0);
	assert_int_equal(file_copies_append_bytes(c, dup_text("4000 10 x\n"), 10, "perf-3.map"), 0);
	file_copies_finish(c);
	n = read_back("perf-1.map", buf, sizeof(buf), &st);
	assert_int_equal(n, 26);
	assert_memory_equal(buf, "1000 10 jit\n2000 10 named\n", 26);
	n = read_back("perf-2.map", buf, sizeof(buf), &st);
	assert_int_equal(n, 14);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(access("/tmp/test_file_copies_nowhere", F_OK), -1);
	file_copies_get_totals(c, &t);
	assert_int_equal(t.copied, 3);
	assert_int_equal(t.failed, 1);
	file_copies_free(c);
}

static void test_budget_refuses_and_counts(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 100);
	struct file_copies_totals t;
	char *big = malloc(80), buf[8];
	struct stat st;

	(void)state;
	assert_non_null(c);
	assert_non_null(big);
	memset(big, 'x', 80);
	assert_int_equal(file_copies_start(c), 0);
	assert_int_equal(file_copies_submit_bytes(c, big, 80, "a", false), 0);
	big = malloc(40);
	assert_non_null(big);
	memset(big, 'y', 40);
	assert_int_equal(file_copies_submit_bytes(c, big, 40, "b", false), 0);
	file_copies_finish(c);
	file_copies_get_totals(c, &t);
	assert_int_equal(t.copied, 1);
	assert_int_equal(t.bytes, 80);
	assert_int_equal(t.over_budget, 1);
	assert_int_equal(t.refused_bytes, 40);
	assert_int_equal(read_back("b", buf, sizeof(buf), &st), -1);
	assert_int_equal(read_back("b.tmp", buf, sizeof(buf), &st), -1);
	file_copies_free(c);
}

static void test_sparse_file_copied_as_its_data(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 20);
	struct file_copies_totals t;
	char path[sizeof(dir) + 16], buf[16];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(c);
	snprintf(path, sizeof(path), "%s/sparse", dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	/* 1 GiB of size, one page of data at its end */
	assert_int_equal(pwrite(fd, "end", 3, (1 << 30) - 3), 3);
	assert_int_equal(file_copies_start(c), 0);
	assert_int_equal(file_copies_submit(c, fd, "copy", false), 0);
	file_copies_finish(c);
	file_copies_get_totals(c, &t);
	assert_int_equal(t.copied, 1);
	assert_true(t.bytes <= 1 << 16);
	fd = openat(dirfd, "copy", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 1 << 30);
	assert_int_equal(pread(fd, buf, 3, (1 << 30) - 3), 3);
	assert_memory_equal(buf, "end", 3);
	close(fd);
	file_copies_free(c);
}

/* Given up with jobs still queued (the thread never started): their bytes
 * and files freed (ASan's leak check), nothing written. */
static void test_given_up_frees_the_queue(void **state)
{
	struct file_copies *c = file_copies_new(dirfd, 1 << 20);
	char buf[8];
	struct stat st;

	(void)state;
	assert_non_null(c);
	assert_int_equal(file_copies_submit_bytes(c, dup_text("lost\n"), 5, "never", false), 0);
	assert_int_equal(file_copies_submit(c, open("/dev/null", O_RDONLY | O_CLOEXEC), "never2",
					    false),
			 0);
	file_copies_free(c);
	assert_int_equal(read_back("never", buf, sizeof(buf), &st), -1);
}

/* A holder keeps at most an eighth of the descriptors it may open. */
static void test_held_within_an_eighth_of_the_descriptors(void **state)
{
	struct rlimit was, low;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = 80;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	assert_int_equal(file_copies_held_max(256), 10);
	assert_int_equal(file_copies_held_max(4), 4);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bytes_written_as_copies_are, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leftover_temporary_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytes_appended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_refuses_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse_file_copied_as_its_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_given_up_frees_the_queue, setup, teardown),
		cmocka_unit_test(test_held_within_an_eighth_of_the_descriptors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
