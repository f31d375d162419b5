/* SPDX-License-Identifier: GPL-2.0-only */
/* test_flight_counts.c: a flight recording's DIR/counts, as record writes it
 * over each second and export -g's /metrics reads it back: every count read
 * back as written, in one file written in place (no file made each second),
 * no read mixing two writes, and nothing read or written through a link,
 * from a FIFO, or from a file missing a count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

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

/* DIR/counts holding text and the hash line of it, as a writer ends it. */
static void put_counts(const struct dir *d, const char *text)
{
	char whole[512];

	snprintf(whole, sizeof(whole), "%sxxh64 %016" PRIx64 "\n", text,
		 (uint64_t)XXH64(text, strlen(text), 0));
	put_file(d, whole);
}

static void test_written_read_back(void **state)
{
	struct dir *d = *state;
	struct flight_counts in = { 123456789012ULL, 7, UINT64_MAX }, out;
	struct stat st, again;
	int fd = -1;

	assert_int_equal(flight_counts_read(d->path, &out), -ENOENT);
	assert_int_equal(flight_control_write_counts(d->fd, &fd, &in), 0);
	assert_true(fd >= 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	assert_int_equal(fstatat(d->fd, OUTPUT_COUNTS_FILE, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* written over in place: the same file, the same length, though the
	 * numbers are shorter */
	in = (struct flight_counts){ 123456789013ULL, 0, 1 };
	assert_int_equal(flight_control_write_counts(d->fd, &fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	assert_int_equal(fstatat(d->fd, OUTPUT_COUNTS_FILE, &again, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(again.st_ino, st.st_ino);
	assert_int_equal(again.st_size, st.st_size);
	assert_int_not_equal(fstatat(d->fd, OUTPUT_COUNTS_NEW_FILE, &st, AT_SYMLINK_NOFOLLOW), 0);
	close(fd);
	/* a counts file and a .new left by a recording killed are replaced by
	 * the next one's first write */
	put_file(d, "x");
	assert_int_equal(renameat(d->fd, OUTPUT_COUNTS_FILE, d->fd, OUTPUT_COUNTS_NEW_FILE), 0);
	put_file(d, "produced 1\nlost 1\nsideband_lost 1\n");
	fd = -1;
	assert_int_equal(flight_control_write_counts(d->fd, &fd, &in), 0);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	assert_int_not_equal(fstatat(d->fd, OUTPUT_COUNTS_NEW_FILE, &st, AT_SYMLINK_NOFOLLOW), 0);
	close(fd);
	/* the end of the recording takes it away with its pid file */
	flight_control_remove_pid(d->fd);
	assert_int_equal(flight_counts_read(d->path, &out), -ENOENT);
}

struct writer {
	int dirfd, fd;
	atomic_bool stop;
	uint64_t writes;
};

/* Writes {n, n, n} over and over, n growing by 10^k steps so that every
 * digit changes. */
static void *keep_writing(void *arg)
{
	struct writer *w = arg;

	for (uint64_t n = 1; !atomic_load(&w->stop); n = n * 7 + 3, w->writes++) {
		struct flight_counts c = { n, n, n };

		if (n > UINT64_MAX / 8)
			n = 1;
		if (flight_control_write_counts(w->dirfd, &w->fd, &c))
			break;
	}
	return NULL;
}

static void test_no_read_mixes_two_writes(void **state)
{
	struct dir *d = *state;
	struct writer w = { .dirfd = d->fd, .fd = -1 };
	struct flight_counts first = { 0, 0, 0 }, out;
	pthread_t t;
	int reads = 0;

	assert_int_equal(flight_control_write_counts(d->fd, &w.fd, &first), 0);
	assert_int_equal(pthread_create(&t, NULL, keep_writing, &w), 0);
	for (int i = 0; i < 20000; i++) {
		int r = flight_counts_read(d->path, &out);

		assert_int_equal(r, 0);
		assert_true(out.produced == out.lost && out.lost == out.sideband_lost);
		reads++;
	}
	atomic_store(&w.stop, true);
	pthread_join(t, NULL);
	close(w.fd);
	print_message("%d reads, each whole, beside %" PRIu64 " writes\n", reads, w.writes);
	assert_true(reads > 0);
}

static void test_incomplete_refused(void **state)
{
	struct dir *d = *state;
	struct flight_counts out;

	put_counts(d, "produced 10\nlost 1\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_counts(d, "produced 10\nlost 1x\nsideband_lost 0\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_counts(d, "produced\nlost 1\nsideband_lost 0\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EINVAL);
	put_counts(d, "# comment\nproduced 10\nlost 1\nsideband_lost 2\nlater 5\n");
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_int_equal(out.sideband_lost, 2);
	/* text its hash does not hold (a write half done that stays so): tried
	 * again for a while, then refused */
	put_file(d, "produced 10\nlost 1\nsideband_lost 2\nxxh64 0123456789abcdef\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EAGAIN);
	put_file(d, "produced 10\nlost 1\nsideband_lost 2\n");
	assert_int_equal(flight_counts_read(d->path, &out), -EAGAIN);
}

static void test_not_through_links_or_fifos(void **state)
{
	struct dir *d = *state;
	struct flight_counts in = { 1, 2, 3 }, out;
	char target[PATH_MAX], text[64];
	int fd;

	snprintf(target, sizeof(target), "%s/elsewhere", d->path);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "produced 1\nlost 1\nsideband_lost 1\n", 34), 34);
	close(fd);
	fd = -1;
	assert_int_equal(symlinkat(target, d->fd, OUTPUT_COUNTS_FILE), 0);
	assert_int_not_equal(flight_counts_read(d->path, &out), 0);
	/* a link planted where the file is made is not written through */
	assert_int_equal(unlinkat(d->fd, OUTPUT_COUNTS_FILE, 0), 0);
	assert_int_equal(symlinkat(target, d->fd, OUTPUT_COUNTS_FILE), 0);
	assert_int_equal(flight_control_write_counts(d->fd, &fd, &in), 0);
	close(fd);
	assert_int_equal(flight_counts_read(d->path, &out), 0);
	assert_int_equal(out.produced, 1);
	assert_int_equal(out.sideband_lost, 3);
	assert_int_equal(unlinkat(d->fd, OUTPUT_COUNTS_FILE, 0), 0);
	/* the link's target is as it was */
	fd = open(target, O_RDONLY);
	assert_int_equal(read(fd, text, sizeof(text)), 34);
	close(fd);
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
		cmocka_unit_test_setup_teardown(test_no_read_mixes_two_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incomplete_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_through_links_or_fifos, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
