/* SPDX-License-Identifier: GPL-2.0-only */
/* test_flight_counts.c: a flight recording's DIR/counts, as record rewrites
 * it each second and export -g's /metrics reads it back: every count read
 * back as written, replaced whole, and nothing read through a link, from a
 * FIFO, or from a file missing a count. */
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

#include "record/flight_control.h"
#include "sys/output_dir.h"
#include "test_util.h"

struct dir {
	char *path;
	int fd;
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	d->path = tu_tempdir();
	d->fd = open(d->path, O_RDONLY | O_DIRECTORY);
	*state = d;
	return d->fd < 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;

	close(d->fd);
	tu_rmtree(d->path);
	free(d->path);
	free(d);
	return 0;
}

static void put_file(const struct dir *d, const char *text)
{
	int fd = openat(d->fd, OUTPUT_COUNTS_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_written_read_back(void **state)
{
	struct dir *d = *state;
	struct flight_counts in = { 123456789012ULL, 7, UINT64_MAX }, out;
	struct stat st;

	assert_int_equal(flight_counts_read(d->path, &out), -ENOENT);
	assert_int_equal(flight_control_write_counts(d->fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	/* replaced whole, by a file of its own (0600), nothing left aside */
	in.produced++;
	assert_int_equal(flight_control_write_counts(d->fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_int_equal(out.produced, 123456789013ULL);
	assert_int_equal(fstatat(d->fd, OUTPUT_COUNTS_FILE, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_not_equal(fstatat(d->fd, OUTPUT_COUNTS_NEW_FILE, &st, AT_SYMLINK_NOFOLLOW), 0);
	/* a .new left by a recording killed while writing is replaced */
	put_file(d, "x");
	assert_int_equal(renameat(d->fd, OUTPUT_COUNTS_FILE, d->fd, OUTPUT_COUNTS_NEW_FILE), 0);
	assert_int_equal(flight_control_write_counts(d->fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	/* the end of the recording takes it away with its pid file */
	flight_control_remove_pid(d->fd);
	assert_int_equal(flight_counts_read(d->path, &out), -ENOENT);
}

static void test_incomplete_refused(void **state)
{
	struct dir *d = *state;
	struct flight_counts out;

	put_file(d, "produced 10\nlost 1\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_file(d, "produced 10\nlost 1x\nsideband_lost 0\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_file(d, "produced\nlost 1\nsideband_lost 0\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_file(d, "# comment\nproduced 10\nlost 1\nsideband_lost 2\nlater 5\n");
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_int_equal(out.sideband_lost, 2);
}

static void test_not_through_links_or_fifos(void **state)
{
	struct dir *d = *state;
	struct flight_counts in = { 1, 2, 3 }, out;
	char target[PATH_MAX];
	int fd;

	snprintf(target, sizeof(target), "%s/elsewhere", d->path);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "produced 1\nlost 1\nsideband_lost 1\n", 34), 34);
	close(fd);
	assert_int_equal(symlinkat(target, d->fd, OUTPUT_COUNTS_FILE), 0);
	assert_int_not_equal(flight_counts_read(d->path, &out), 0);
	/* a link planted where the new file is written is not written through */
	assert_int_equal(unlinkat(d->fd, OUTPUT_COUNTS_FILE, 0), 0);
	assert_int_equal(symlinkat(target, d->fd, OUTPUT_COUNTS_NEW_FILE), 0);
	assert_int_equal(flight_control_write_counts(d->fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_int_equal(out.produced, 1);
	assert_int_equal(out.sideband_lost, 3);
	assert_int_equal(unlinkat(d->fd, OUTPUT_COUNTS_FILE, 0), 0);
	/* a FIFO is not waited on */
	assert_int_equal(mkfifoat(d->fd, OUTPUT_COUNTS_FILE, 0600), 0);
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	unlinkat(d->fd, OUTPUT_COUNTS_FILE, 0);
	unlink(target);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_written_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_through_links_or_fifos, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
