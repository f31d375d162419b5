/* SPDX-License-Identifier: GPL-2.0-only */
/* test_dir_entries.c: every entry of a directory but . and .., again from
 * the start on a second listing, a listing stopped by its callback, and a
 * descriptor of no directory named as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/dir_entries.h"

struct listing {
	unsigned int seen, dots, stop_at;
	unsigned int mask; /* bit i: file fi seen */
};

static int note(int dirfd, const char *name, void *ctx)
{
	struct listing *l = ctx;
	struct stat st;

	assert_int_equal(fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	l->seen++;
	l->dots += name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
	if (name[0] == 'f' && name[1] >= '0' && name[1] <= '9')
		l->mask |= 1u << (name[1] - '0');
	return l->stop_at && l->seen == l->stop_at ? 7 : 0;
}

static void test_entries(void **state)
{
	char dir[] = "/tmp/test_dir_entries.XXXXXX", path[64];
	struct listing l = { 0 };
	int fd, file;

	(void)state;
	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		file = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
		assert_true(file >= 0);
		close(file);
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	for (int pass = 0; pass < 2; pass++) { /* the second from the start too */
		l = (struct listing){ 0 };
		assert_int_equal(dir_each_entry(fd, note, &l), 0);
		assert_int_equal(l.seen, 5);
		assert_int_equal(l.dots, 0);
		assert_int_equal(l.mask, 0x1f);
	}
	l = (struct listing){ .stop_at = 2 };
	assert_int_equal(dir_each_entry(fd, note, &l), 7);
	assert_int_equal(l.seen, 2);
	close(fd);
	snprintf(path, sizeof(path), "%s/f0", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	l = (struct listing){ 0 };
	assert_int_equal(dir_each_entry(fd, note, &l), -ENOTDIR);
	assert_int_equal(l.seen, 0);
	close(fd);
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
