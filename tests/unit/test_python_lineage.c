/* SPDX-License-Identifier: GPL-2.0-only */
/* test_python_lineage.c: the execs, exits and forks remembered for side-band
 * read out of time order: an exec or exit bars forks before it, a parent's
 * forks are taken once each, oldest first, at or after a time, and the
 * oldest are evicted when more are kept than there is room for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "record/python_lineage.h"

static struct python_lineage *fresh(void)
{
	struct python_lineage *l = calloc(1, sizeof(*l));

	assert_non_null(l);
	return l;
}

static void fork_of(struct python_lineage *l, uint32_t parent, uint32_t child, uint64_t time)
{
	const struct perf_sample_id sid = { .pid = child, .tid = child, .time = time, .cpu = 1 };

	python_lineage_note_fork(l, parent, &sid);
}

static void test_exec_bars_earlier_forks(void **state)
{
	struct python_lineage *l = fresh();

	(void)state;
	assert_false(python_lineage_execd_since(l, 42, 0));
	python_lineage_note_exec(l, 42, 1000);
	assert_true(python_lineage_execd_since(l, 42, 999));
	assert_true(python_lineage_execd_since(l, 42, 1000));
	assert_false(python_lineage_execd_since(l, 42, 1001));
	/* another pid in the same slot evicts it: no longer known */
	python_lineage_note_exec(l, 42 + PYTHON_LINEAGE_KEPT, 2000);
	assert_false(python_lineage_execd_since(l, 42, 999));
	assert_true(python_lineage_execd_since(l, 42 + PYTHON_LINEAGE_KEPT, 2000));
	free(l);
}

static void test_exit_bars_earlier_forks(void **state)
{
	struct python_lineage *l = fresh();

	(void)state;
	assert_false(python_lineage_exited_since(l, 42, 0));
	python_lineage_note_exit(l, 42, 1000);
	assert_true(python_lineage_exited_since(l, 42, 1000));
	assert_false(python_lineage_exited_since(l, 42, 1001)); /* the pid taken again */
	/* exits and execs are apart */
	assert_false(python_lineage_execd_since(l, 42, 0));
	python_lineage_note_exit(l, 42 + PYTHON_LINEAGE_KEPT, 2000);
	assert_false(python_lineage_exited_since(l, 42, 0));
	free(l);
}

static void test_forks_taken_once_oldest_first(void **state)
{
	struct python_lineage *l = fresh();
	struct python_fork f;

	(void)state;
	fork_of(l, 7, 100, 50);  /* before the parent's time asked: stays */
	fork_of(l, 8, 200, 300); /* another parent's */
	fork_of(l, 7, 101, 400);
	fork_of(l, 7, 102, 500);
	assert_true(python_lineage_take_fork(l, 7, 100, &f));
	assert_int_equal(f.parent, 7);
	assert_int_equal(f.sid.pid, 101);
	assert_int_equal(f.sid.time, 400);
	assert_int_equal(f.sid.cpu, 1);
	assert_true(python_lineage_take_fork(l, 7, 100, &f));
	assert_int_equal(f.sid.pid, 102);
	assert_false(python_lineage_take_fork(l, 7, 100, &f));
	/* the earlier fork, asked from an earlier time */
	assert_true(python_lineage_take_fork(l, 7, 0, &f));
	assert_int_equal(f.sid.pid, 100);
	assert_false(python_lineage_take_fork(l, 7, 0, &f));
	assert_true(python_lineage_take_fork(l, 8, 300, &f));
	assert_int_equal(f.sid.pid, 200);
	assert_false(python_lineage_take_fork(l, 8, 0, &f));
	free(l);
}

static void test_oldest_forks_evicted(void **state)
{
	struct python_lineage *l = fresh();
	struct python_fork f;
	uint32_t n = 0;

	(void)state;
	for (uint32_t i = 0; i < PYTHON_LINEAGE_KEPT + 10; i++)
		fork_of(l, 7, 1000 + i, 10 + i);
	while (python_lineage_take_fork(l, 7, 0, &f)) {
		/* the first ten gone; the rest, oldest first */
		assert_int_equal(f.sid.pid, 1010 + n);
		n++;
	}
	assert_int_equal(n, PYTHON_LINEAGE_KEPT);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_bars_earlier_forks),
		cmocka_unit_test(test_exit_bars_earlier_forks),
		cmocka_unit_test(test_forks_taken_once_oldest_first),
		cmocka_unit_test(test_oldest_forks_evicted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
