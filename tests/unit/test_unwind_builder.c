/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_builder.c: the builder threads hand over, for a big file of a
 * process that runs now, the first stage's table (compiled in two parts on
 * the two threads, each put in the BPF layout on its own, joined where they
 * meet) and then the whole, each row for row the table one compile gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/unwind_builder.h"
#include "symbols/unwind_compile.h"
#include "test_util.h"

/* The defaults but for the time: this checks tables, not budgets (cc1's
 * compile takes seconds under the sanitizers). */
static const struct unwind_budget untimed = {
	.max_rows = UNWIND_DEFAULT_MAX_ROWS,
	.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
	.max_seconds = 600.0,
};

#define CC1 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"

/* The table one compile of path gives: the first stage's (staged) or the whole. */
static void compile_once(const char *path, bool staged, struct unwind_table *t)
{
	struct unwind_stage stage = { .defer_over_cfi_bytes = UNWIND_STAGE_DEFER_OVER_CFI_BYTES };
	enum unwind_refusal why;
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(unwind_table_build_staged(fd, &untimed, staged ? &stage : NULL, t, &why,
						   err, sizeof(err)),
			 0);
	close(fd);
}

static void assert_same_rows(const struct unwind_built *got, const struct unwind_table *want)
{
	assert_non_null(got->rows);
	assert_int_equal(got->nr, want->nr);
	assert_int_equal(got->exec_vaddr_delta, want->exec_vaddr_delta);
	for (size_t i = 0; i < want->nr; i++) {
		const struct rt_unwind_row *g = &got->rows[i];
		const struct unwind_row *w = &want->rows[i];

		assert_int_equal(g->pc, w->pc);
		assert_int_equal(g->cfa, w->cfa);
		assert_int_equal(g->cfa_reg, w->cfa_reg);
		assert_int_equal(g->cfa_offset, w->cfa_offset);
		assert_int_equal(g->rbp, w->rbp);
		assert_int_equal(g->rbp_offset, w->rbp_offset);
		assert_int_equal(g->rbx, w->rbx);
		assert_int_equal(g->rbx_offset, w->rbx_offset);
	}
}

/* The next table the builder hands over (a minute at most). */
static struct unwind_built next_built(struct unwind_builder *b)
{
	struct unwind_built built;

	for (int waited = 0; waited < 600; waited++) {
		struct pollfd p = { .fd = unwind_builder_fd(b), .events = POLLIN };

		if (unwind_builder_collect(b, &built, 1) == 1)
			return built;
		assert_true(poll(&p, 1, 100) >= 0);
	}
	fail_msg("the builder handed over no table in a minute");
	return built;
}

static void test_parts_hand_over_the_one_compile_tables(void **state)
{
	struct unwind_table first, whole;
	struct unwind_built got;
	struct unwind_builder *b;
	int tag, fd;

	(void)state;
	if (access(CC1, R_OK))
		tu_skip("no %s on this machine (gcc's compiler proper: apt-get install gcc)", CC1);
	compile_once(CC1, true, &first);
	compile_once(CC1, false, &whole);
	assert_true(first.deferred_fdes > 0);
	b = unwind_builder_new(NULL, &untimed);
	assert_non_null(b);
	fd = open(CC1, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_builder_submit(b, &tag, fd, true), 0);

	got = next_built(b);
	assert_ptr_equal(got.tag, &tag);
	assert_true(got.first_stage);
	assert_same_rows(&got, &first);
	free(got.rows);

	got = next_built(b);
	assert_ptr_equal(got.tag, &tag);
	assert_false(got.first_stage);
	assert_same_rows(&got, &whole);
	free(got.rows);
	assert_int_equal(unwind_builder_pending(b), 0);

	unwind_builder_free(b);
	unwind_table_free(&first);
	unwind_table_free(&whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_hand_over_the_one_compile_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
