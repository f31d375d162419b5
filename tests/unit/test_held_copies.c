/* SPDX-License-Identifier: GPL-2.0-only */
/* test_held_copies.c: copies held until a sample touches the file: a file
 * touched through its own range or another process's is copied, once; one
 * never touched is not (counted, with its bytes); a sample drained before
 * the mapping it lies in touches it as it comes; overlapping ranges of
 * different files each answer for their own addresses; kernel addresses
 * and perf's context markers touch nothing; past the page bound every file
 * is copied as it comes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/held_copies.h"
#include "test_util.h"

struct fixture {
	char *dir;
	int dirfd;
	struct file_copies *copies;
	struct held_copies *held;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->dir = tu_tempdir();
	f->dirfd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	f->copies = file_copies_new(f->dirfd, 1 << 20);
	f->held = held_copies_new(f->copies);
	if (f->dirfd < 0 || !f->copies || !f->held || file_copies_start(f->copies))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	held_copies_free(f->held);
	file_copies_free(f->copies);
	close(f->dirfd);
	tu_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* A file of 100 bytes to hold: its fd. */
static int source(const struct fixture *f, const char *name)
{
	char path[4096], bytes[100] = { 0 };
	int fd;

	snprintf(path, sizeof(path), "%s/src-%s", f->dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, sizeof(bytes)), (ssize_t)sizeof(bytes));
	return fd;
}

/* Once every copy queued is made: whether dir/name exists. */
static bool copied(struct fixture *f, const char *name)
{
	file_copies_finish(f->copies);
	return faccessat(f->dirfd, name, F_OK, 0) == 0;
}

static void test_touched_copied_untouched_not(void **state)
{
	struct fixture *f = *state;
	struct held_copies_totals t;
	uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ULL, PERF_CONTEXT_USER,
			     0x7f0000001234ULL, 0x7f0000002000ULL };

	held_copies_hold(f->held, source(f, "a"), "a", 0x7f0000000000ULL, 0x7f0000010000ULL);
	held_copies_hold(f->held, source(f, "b"), "b", 0x400000, 0x410000);
	/* another process maps b elsewhere: that range is b's too */
	held_copies_hold(f->held, source(f, "b2"), "b", 0x500000, 0x510000);
	/* a kernel ip, the markers: nothing; then a's range in the callchain */
	held_copies_touch(f->held, 0xffffffff81000010ULL, chain, 3, NULL, 0);
	held_copies_get_totals(f->held, &t);
	assert_int_equal(t.touched, 0);
	held_copies_touch(f->held, 0xffffffff81000010ULL, chain, 5, NULL, 0);
	held_copies_touch(f->held, 0x7f0000003000ULL, NULL, 0, NULL, 0); /* again: once */
	held_copies_finish(f->held);
	assert_true(copied(f, "a"));
	assert_false(copied(f, "b"));
	held_copies_get_totals(f->held, &t);
	assert_int_equal(t.held, 2);
	assert_int_equal(t.touched, 1);
	assert_int_equal(t.untouched, 1);
	assert_int_equal(t.untouched_bytes, 100);
}

static void test_other_range_and_stack_words(void **state)
{
	struct fixture *f = *state;
	uint64_t stack[4] = { 0x1234, 0x7ffd00000000ULL, 0x50f100, 7 };
	struct held_copies_totals t;

	held_copies_hold(f->held, source(f, "b"), "b", 0x400000, 0x410000);
	held_copies_add_range(f->held, "b", 0x500000, 0x510000);
	assert_false(held_copies_add_range(f->held, "none", 0x600000, 0x610000));
	/* a return address in b's second range, among a stack copy's words */
	held_copies_touch(f->held, 0x7ffd00000010ULL, NULL, 0, (const uint8_t *)stack,
			  sizeof(stack));
	held_copies_get_totals(f->held, &t);
	assert_int_equal(t.touched, 1);
	assert_true(copied(f, "b"));
}

static void test_sample_before_its_mapping(void **state)
{
	struct fixture *f = *state;
	uint64_t chain[] = { 0x300010 };
	struct held_copies_totals t;

	/* drained before the MMAP2 of its file: remembered */
	held_copies_touch(f->held, 0x200010, chain, 1, NULL, 0);
	held_copies_hold(f->held, source(f, "late"), "late", 0x300000, 0x301000);
	held_copies_hold(f->held, source(f, "never"), "never", 0x900000, 0x901000);
	/* a stack word is not remembered: data, most of them */
	held_copies_touch(f->held, 0x7ffd00000010ULL, NULL, 0,
			  (const uint8_t *)&(uint64_t){ 0xa00010 }, sizeof(uint64_t));
	held_copies_hold(f->held, source(f, "data"), "data", 0xa00000, 0xa01000);
	held_copies_finish(f->held);
	held_copies_get_totals(f->held, &t);
	assert_int_equal(t.touched, 1);
	assert_true(copied(f, "late"));
	assert_false(copied(f, "never"));
	assert_false(copied(f, "data"));
}

static void test_overlapping_ranges(void **state)
{
	struct fixture *f = *state;

	/* a long range, then a short one inside it, then one after both */
	held_copies_hold(f->held, source(f, "long"), "long", 0x100000, 0x900000);
	held_copies_hold(f->held, source(f, "short"), "short", 0x200000, 0x201000);
	held_copies_hold(f->held, source(f, "after"), "after", 0x950000, 0x960000);
	/* past short's end, inside long's: long */
	held_copies_touch(f->held, 0x500000, NULL, 0, NULL, 0);
	held_copies_finish(f->held);
	assert_true(copied(f, "long"));
	assert_false(copied(f, "short"));
	assert_false(copied(f, "after"));
}

static void test_page_bound_copies_as_they_come(void **state)
{
	struct fixture *f = *state;
	struct held_copies_totals t;

	held_copies_hold(f->held, source(f, "early"), "early", 0x7e0000000000ULL,
			 0x7e0000001000ULL);
	for (uint64_t p = 0; p <= HELD_PAGES_MAX; p++)
		held_copies_touch(f->held, 0x10000000 + (p << 12), NULL, 0, NULL, 0);
	held_copies_hold(f->held, source(f, "late"), "late", 0x7e0000100000ULL, 0x7e0000101000ULL);
	held_copies_get_totals(f->held, &t);
	assert_int_equal(t.at_once, 2);
	assert_true(copied(f, "early"));
	assert_true(copied(f, "late"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_touched_copied_untouched_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_range_and_stack_words, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sample_before_its_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlapping_ranges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_bound_copies_as_they_come, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
