/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_builder.c: the builder threads hand over, for a big file of a
 * process that runs now, the first stage's table (compiled in two parts on
 * the two threads, each put in the BPF layout on its own, joined where they
 * meet) and then the whole, each row for row the table one compile gives;
 * parts joined in the BPF layout meet as unwind_table_join joins them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/unwind_bpf_rows.h"
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

static void assert_rows_equal(const struct rt_unwind_row *got, uint32_t nr,
			      const struct unwind_table *want)
{
	assert_non_null(got);
	assert_int_equal(nr, want->nr);
	for (size_t i = 0; i < want->nr; i++) {
		const struct rt_unwind_row *g = &got[i];
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

static void assert_same_rows(const struct unwind_built *got, const struct unwind_table *want)
{
	assert_rows_equal(got->rows, got->nr, want);
	assert_int_equal(got->exec_vaddr_delta, want->exec_vaddr_delta);
}

/* A row at pc whose rule is rsp + off (off 0: frame pointers' NONE row). */
static struct unwind_row row(uint64_t pc, int32_t off)
{
	return (struct unwind_row){ .pc = pc, .cfa = off ? UNWIND_CFA_RSP : UNWIND_CFA_NONE,
				    .cfa_offset = off };
}

/* Parts that meet every way (the next part's first row covered by the last
 * row before it, at its address, after it; an empty part; a part of one
 * covered row) join in the BPF layout as unwind_table_join joins them. */
static void test_bpf_rows_join_as_tables(void **state)
{
	struct unwind_row r0[] = { row(0x1000, 8), row(0x1010, 16), row(0x1020, 0) };
	struct unwind_row r1[] = { row(0x1020, 8), row(0x1030, 0) };   /* replaces the NONE */
	struct unwind_row r2[] = { row(0x1040, 0), row(0x1050, 24) };  /* covered, then after */
	struct unwind_row r3[] = { row(0x1060, 24) };                  /* one row, covered */
	struct unwind_row r4[] = { row(0x1060, 32), row(0x1070, 0) };  /* at the row before's address */
	struct unwind_table parts[] = { { .rows = r0, .nr = 3 }, { .rows = r1, .nr = 2 },
					{ .rows = r2, .nr = 2 }, { .rows = NULL, .nr = 0 },
					{ .rows = r3, .nr = 1 }, { .rows = r4, .nr = 2 } };
	const unsigned int n = sizeof(parts) / sizeof(parts[0]);
	struct rt_unwind_row *rows_of[sizeof(parts) / sizeof(parts[0])], *joined;
	struct unwind_table want;
	uint32_t nr = 0;

	(void)state;
	for (unsigned int p = 0; p < n; p++)
		rows_of[p] = parts[p].nr ? unwind_bpf_rows_of(&parts[p]) : NULL;
	assert_int_equal(unwind_table_join(parts, n, &want), 0);
	joined = unwind_bpf_rows_join(parts, rows_of, n, &nr);
	assert_rows_equal(joined, nr, &want);
	/* what the seams did: r0's 0x1020 replaced, 0x1040 and the one-row
	 * part's 0x1060 covered, so that r4's 0x1060 follows 0x1050 */
	assert_int_equal(nr, 7);
	free(joined);
	/* a part's rows not in the BPF layout: nothing joined */
	free(rows_of[1]);
	rows_of[1] = NULL;
	assert_null(unwind_bpf_rows_join(parts, rows_of, n, &nr));
	for (unsigned int p = 0; p < n; p++)
		free(rows_of[p]);
	unwind_table_free(&want);
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
		cmocka_unit_test(test_bpf_rows_join_as_tables),
		cmocka_unit_test(test_parts_hand_over_the_one_compile_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
