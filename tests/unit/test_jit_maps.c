/* SPDX-License-Identifier: GPL-2.0-only */
/* test_jit_maps.c: a JIT's /tmp/perf-PID.map (this test's own pid) is copied
 * into the recording when it is a regular file of the process's user, and a
 * FIFO, a symlink, a directory or a map over 256 MiB in its place is refused
 * and counted in the copies' totals (too_large, failed), which the totals
 * line prints; a map that is not there is none to count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/jit_maps.h"
#include "sys/file_copies.h"
#include "test_util.h"

struct fixture {
	char *dir;       /* the recording's directory */
	int dirfd;
	char map[64];    /* /tmp/perf-PID.map of this process */
	char target[80]; /* what a symlink there points to */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->dir = tu_tempdir();
	fx->dirfd = open(fx->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	snprintf(fx->map, sizeof(fx->map), "/tmp/perf-%d.map", (int)getpid());
	snprintf(fx->target, sizeof(fx->target), "%s/elsewhere.map", fx->dir);
	unlink(fx->map);
	*state = fx;
	return fx->dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	unlink(fx->map);
	rmdir(fx->map);
	close(fx->dirfd);
	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* This process noted as a JIT (an MMAP2 of anonymous executable memory) and
 * its map copied as it would be when it exits; the copies' totals after. */
static struct file_copies_totals copy_own_map(struct fixture *fx)
{
	struct perf_mmap m = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
			       .start = 0x10000, .len = 0x1000, .prot = PROT_READ | PROT_EXEC,
			       .flags = MAP_PRIVATE | MAP_ANONYMOUS, .filename = "//anon" };
	struct file_copies *c = file_copies_new(fx->dirfd, 1 << 20);
	struct file_copies_totals t;
	struct jit_maps j;

	assert_non_null(c);
	assert_int_equal(file_copies_start(c), 0);
	jit_maps_init(&j, fx->dirfd, c);
	jit_maps_note_mmap(&j, &m);
	jit_maps_copy(&j, (uint32_t)getpid());
	jit_maps_free(&j);
	file_copies_finish(c);
	file_copies_get_totals(c, &t);
	file_copies_free(c);
	return t;
}

/* Whether DIR/perf-PID.map was made. */
static bool kept(struct fixture *fx)
{
	char name[64];
	struct stat st;

	snprintf(name, sizeof(name), "perf-%d.map", (int)getpid());
	return !fstatat(fx->dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
}

static void write_map(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A regular file of ours: copied, nothing refused. */
static void test_regular_map_copied(void **state)
{
	struct fixture *fx = *state;
	struct file_copies_totals t;

	write_map(fx->map, "10000 100 jitted_function\n");
	t = copy_own_map(fx);
	assert_int_equal(t.copied, 1);
	assert_int_equal(t.failed, 0);
	assert_int_equal(t.too_large, 0);
	assert_true(kept(fx));
}

/* No map at all (a JIT that writes none): nothing copied, nothing counted. */
static void test_missing_map_not_counted(void **state)
{
	struct fixture *fx = *state;
	struct file_copies_totals t = copy_own_map(fx);

	assert_int_equal(t.copied, 0);
	assert_int_equal(t.failed, 0);
	assert_int_equal(t.too_large, 0);
}

/* A FIFO, a symlink to a good map, a directory: refused, each counted
 * failed, none kept. */
static void test_fifo_symlink_directory_counted(void **state)
{
	struct fixture *fx = *state;
	struct file_copies_totals t;

	assert_int_equal(mkfifo(fx->map, 0600), 0);
	t = copy_own_map(fx);
	assert_int_equal(t.failed, 1);
	assert_int_equal(t.copied, 0);
	assert_false(kept(fx));
	unlink(fx->map);

	write_map(fx->target, "10000 100 jitted_function\n");
	assert_int_equal(symlink(fx->target, fx->map), 0);
	t = copy_own_map(fx);
	assert_int_equal(t.failed, 1);
	assert_int_equal(t.copied, 0);
	assert_false(kept(fx));
	unlink(fx->map);

	assert_int_equal(mkdir(fx->map, 0700), 0);
	t = copy_own_map(fx);
	assert_int_equal(t.failed, 1);
	assert_false(kept(fx));
}

/* A map over 256 MiB (sparse: it costs no disk): refused as too large,
 * counted so, not kept. */
static void test_oversized_map_counted(void **state)
{
	struct fixture *fx = *state;
	struct file_copies_totals t;

	write_map(fx->map, "10000 100 jitted_function\n");
	assert_int_equal(truncate(fx->map, (off_t)JIT_MAP_MAX_BYTES + 1), 0);
	t = copy_own_map(fx);
	assert_int_equal(t.too_large, 1);
	assert_int_equal(t.failed, 0);
	assert_int_equal(t.copied, 0);
	assert_false(kept(fx));
}

/* Another user's map where ours should be (root alone can make one here):
 * refused, counted failed. */
static void test_other_users_map_counted(void **state)
{
	struct fixture *fx = *state;
	struct file_copies_totals t;

	if (geteuid() != 0)
		tu_skip("only root can give the map another owner");
	write_map(fx->map, "10000 100 jitted_function\n");
	assert_int_equal(chown(fx->map, 65534, 65534), 0);
	t = copy_own_map(fx);
	assert_int_equal(t.failed, 1);
	assert_int_equal(t.copied, 0);
	assert_false(kept(fx));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_map_copied, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_map_not_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo_symlink_directory_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_map_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_users_map_counted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
