/* SPDX-License-Identifier: GPL-2.0-only */
/* test_output_rename.c: an output directory named, or made, beside entries
 * others put at its names: each name taken is passed over, never followed
 * nor replaced, and what stands at another name is never renamed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/output_rename.h"

struct fixture {
	char dir[64];
	int fd;
};

static int setup(void **state)
{
	static struct fixture f;

	snprintf(f.dir, sizeof(f.dir), "/tmp/test_output_rename.XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	f.fd = open(f.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = &f;
	return f.fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	close(f->fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	return system(cmd) ? -1 : 0;
}

/* A symlink at dir/name to "target" (where a writer through it would land). */
static void plant(struct fixture *f, const char *name)
{
	assert_int_equal(symlinkat("target", f->fd, name), 0);
}

static void assert_symlink(struct fixture *f, const char *name)
{
	char buf[16];
	ssize_t n = readlinkat(f->fd, name, buf, sizeof(buf));

	assert_int_equal(n, 6);
	assert_memory_equal(buf, "target", 6);
}

/* dir/name, a directory holding the file "mark". */
static void assert_marked_dir(struct fixture *f, const char *name)
{
	struct stat st;
	char path[NAME_MAX + 8];

	assert_int_equal(fstatat(f->fd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/mark", name);
	assert_int_equal(fstatat(f->fd, path, &st, AT_SYMLINK_NOFOLLOW), 0);
}

/* dir/name made and marked; an fd on it. */
static int make_marked(struct fixture *f, const char *name)
{
	int fd, file;

	assert_int_equal(mkdirat(f->fd, name, 0700), 0);
	fd = openat(f->fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	file = openat(fd, "mark", O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(file >= 0);
	close(file);
	return fd;
}

static void test_free_name_is_taken_as_is(void **state)
{
	struct fixture *f = *state;
	char out[NAME_MAX + 1], err[256];
	unsigned int taken = 0;
	int fd = make_marked(f, "a");

	assert_int_equal(output_rename_unique(f->fd, "", "a", fd, "a.2026120212000000", out,
					      sizeof(out), &taken, err, sizeof(err)),
			 0);
	assert_string_equal(out, "a.2026120212000000");
	assert_int_equal(taken, 0);
	assert_marked_dir(f, out);
	close(fd);
}

/* Taken: .1, .2, ... after it; all nine taken: .r and 16 hex digits. */
static void test_taken_names_are_passed_over(void **state)
{
	struct fixture *f = *state;
	char out[NAME_MAX + 1], err[256], name[64];
	unsigned int taken = 0;
	int fd = make_marked(f, "a");

	plant(f, "a.2026120212000000");
	plant(f, "a.2026120212000000.1");
	assert_int_equal(output_rename_unique(f->fd, "", "a", fd, "a.2026120212000000", out,
					      sizeof(out), &taken, err, sizeof(err)),
			 0);
	assert_string_equal(out, "a.2026120212000000.2");
	assert_int_equal(taken, 2);
	assert_marked_dir(f, out);
	assert_symlink(f, "a.2026120212000000");
	assert_symlink(f, "a.2026120212000000.1");
	close(fd);

	fd = make_marked(f, "b");
	plant(f, "b.2026120212000000");
	for (int i = 1; i <= OUTPUT_NAME_NUMBERED; i++) {
		snprintf(name, sizeof(name), "b.2026120212000000.%d", i);
		plant(f, name);
	}
	taken = 0;
	assert_int_equal(output_rename_unique(f->fd, "", "b", fd, "b.2026120212000000", out,
					      sizeof(out), &taken, err, sizeof(err)),
			 0);
	assert_int_equal(taken, 1 + OUTPUT_NAME_NUMBERED);
	assert_int_equal(strlen(out), strlen("b.2026120212000000.r") + 16);
	assert_memory_equal(out, "b.2026120212000000.r", strlen("b.2026120212000000.r"));
	assert_int_equal(strspn(out + strlen("b.2026120212000000.r"), "0123456789abcdef"), 16);
	assert_marked_dir(f, out);
	for (int i = 1; i <= OUTPUT_NAME_NUMBERED; i++) {
		snprintf(name, sizeof(name), "b.2026120212000000.%d", i);
		assert_symlink(f, name);
	}
	close(fd);
}

/* What stands at from is not the directory fd is open on: left alone. */
static void test_another_entry_is_not_renamed(void **state)
{
	struct fixture *f = *state;
	char out[NAME_MAX + 1], err[256];
	unsigned int taken = 0;
	int fd = make_marked(f, "c");

	assert_int_equal(renameat(f->fd, "c", f->fd, "c.moved"), 0);
	plant(f, "c");
	assert_int_equal(output_rename_unique(f->fd, "", "c", fd, "c.2026120212000000", out,
					      sizeof(out), &taken, err, sizeof(err)),
			 -ESTALE);
	assert_non_null(strstr(err, "no longer"));
	assert_symlink(f, "c");
	assert_int_equal(faccessat(f->fd, "c.2026120212000000", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(fd);
}

/* The next output's directory: its name, or if taken name.next. and 16 hex
 * digits, a directory of the caller's, 0700. */
static void test_next_dir_beside_a_taken_name(void **state)
{
	struct fixture *f = *state;
	char out[NAME_MAX + 1], err[256];
	unsigned int taken = 0;
	struct stat st;
	int fd;

	fd = output_dir_create_unique(f->fd, "", "d", out, sizeof(out), &taken, err, sizeof(err));
	assert_true(fd >= 0);
	assert_string_equal(out, "d");
	assert_int_equal(taken, 0);
	close(fd);

	plant(f, "e");
	fd = output_dir_create_unique(f->fd, "", "e", out, sizeof(out), &taken, err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(taken, 1);
	assert_int_equal(strlen(out), strlen("e.next.") + 16);
	assert_memory_equal(out, "e.next.", strlen("e.next."));
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(fstatat(f->fd, out, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_symlink(f, "e");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_free_name_is_taken_as_is, setup, teardown),
		cmocka_unit_test_setup_teardown(test_taken_names_are_passed_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_entry_is_not_renamed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_next_dir_beside_a_taken_name, setup, teardown),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
