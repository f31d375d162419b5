/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sigbus_guard.c: a read of a mapped file truncated under it comes back
 * as an error from the guard, nested guards unwind to the inner one, and a
 * function that does not fault returns its own value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sys/sigbus_guard.h"

struct mapped {
	volatile const uint8_t *at;
	size_t page;
};

static int read_second_page(void *arg)
{
	struct mapped *m = arg;

	return m->at[m->page]; /* past the file's end once truncated */
}

static int returns_seven(void *arg)
{
	(void)arg;
	return 7;
}

/* The inner guard catches the fault; the outer one sees the inner's return. */
static int nested(void *arg)
{
	int inner = sigbus_guard_run(read_second_page, arg);

	return inner == SIGBUS_GUARD_FAULT ? 1 : 0;
}

static void map_truncated(struct mapped *m, void **base)
{
	char path[] = "/tmp/ringtrace-sigbus-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	m->page = (size_t)sysconf(_SC_PAGESIZE);
	assert_int_equal(ftruncate(fd, (off_t)(2 * m->page)), 0);
	*base = mmap(NULL, 2 * m->page, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(*base != MAP_FAILED);
	assert_int_equal(ftruncate(fd, 0), 0);
	close(fd);
	m->at = *base;
}

static void test_truncated_file_read_is_an_error(void **state)
{
	struct mapped m;
	void *base;

	(void)state;
	map_truncated(&m, &base);
	assert_int_equal(sigbus_guard_run(read_second_page, &m), SIGBUS_GUARD_FAULT);
	/* again: the handler stays in place */
	assert_int_equal(sigbus_guard_run(read_second_page, &m), SIGBUS_GUARD_FAULT);
	assert_int_equal(sigbus_guard_run(nested, &m), 1);
	assert_int_equal(sigbus_guard_run(returns_seven, NULL), 7);
	munmap(base, 2 * m.page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncated_file_read_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
