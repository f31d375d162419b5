/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_pages.c: the page index the in-kernel unwinder narrows its row
 * search with: for every address, the rows it names hold the row a search of
 * the whole table finds, few enough for the short search, within its size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "capture/unwind_loader.h"

/* The last row whose pc <= vaddr (rows[0].pc <= vaddr): the whole search. */
static uint32_t whole_search(const struct rt_unwind_row *rows, uint32_t nr, uint32_t vaddr)
{
	uint32_t lo = 0, hi = nr;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rows[mid].pc <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* What the BPF side does with the index (find_row, bpf/ehframe_rows.bpf.h). */
static uint32_t page_search(const struct rt_unwind_row *rows, uint32_t nr, const uint32_t *pages,
			    const struct rt_unwind_slice *t, uint32_t vaddr, uint32_t *span)
{
	uint32_t page = (vaddr - t->page_base) >> (t->page_shift & 31), lo, hi;

	if (page >= t->nr_pages)
		page = t->nr_pages - 1;
	lo = pages[page];
	hi = page + 1 < t->nr_pages ? pages[page + 1] : nr - 1;
	assert_true(lo <= hi && hi < nr);
	*span = hi - lo;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (rows[mid].pc <= vaddr)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* rows with pcs from base, gaps drawn from gap(i). */
static struct rt_unwind_row *make_rows(uint32_t nr, uint32_t base, uint32_t (*gap)(uint32_t))
{
	struct rt_unwind_row *rows = calloc(nr, sizeof(*rows));
	uint32_t pc = base;

	assert_non_null(rows);
	for (uint32_t i = 0; i < nr; i++) {
		rows[i].pc = pc;
		rows[i].cfa = RT_CFA_RSP;
		pc += gap(i);
	}
	return rows;
}

static uint32_t gap_code(uint32_t i)
{
	/* prologue rows 1-4 bytes apart, then a function body */
	return i % 5 == 4 ? 40 + (i * 2654435761u) % 3000 : 1 + i % 4;
}

static uint32_t gap_sparse(uint32_t i)
{
	/* few FDEs over a huge text: chromium-like gaps */
	return 1 + (i * 40503u) % 9000000;
}

static uint32_t gap_equal(uint32_t i)
{
	/* rows at one pc (a table as a lying file may make it) */
	return i % 7 == 0;
}

static void check_every_address(const struct rt_unwind_row *rows, uint32_t nr)
{
	uint32_t *pages = calloc(nr / RT_UNWIND_ROWS_PER_PAGE + 1, sizeof(*pages));
	uint64_t last = (uint64_t)rows[nr - 1].pc + 100, step, short_ones = 0, tried = 0;
	struct rt_unwind_slice t = { 0 };
	uint32_t span;

	assert_non_null(pages);
	unwind_page_index(rows, nr, pages, &t);
	assert_true(t.nr_pages >= 1 && t.nr_pages <= nr / RT_UNWIND_ROWS_PER_PAGE + 1);
	assert_int_equal(t.page_base, rows[0].pc);
	step = (last - rows[0].pc) / 200000 + 1;
	for (uint64_t a = rows[0].pc; a <= last && a <= UINT32_MAX; a += step) {
		uint32_t want = whole_search(rows, nr, (uint32_t)a);
		uint32_t got = page_search(rows, nr, pages, &t, (uint32_t)a, &span);

		if (rows[got].pc != rows[want].pc || got > want)
			fail_msg("at %#llx: rows %u (pc %#x) by the index, %u (pc %#x) whole",
				 (unsigned long long)a, got, rows[got].pc, want, rows[want].pc);
		tried++;
		short_ones += span < (1u << RT_UNWIND_PAGE_STEPS);
	}
	print_message("%u rows, %u pages of 2^%u bytes: %.1f%% of %llu addresses searched short\n",
		      nr, t.nr_pages, t.page_shift, 100.0 * (double)short_ones / (double)tried,
		      (unsigned long long)tried);
	free(pages);
}

static void test_code_like_rows(void **state)
{
	struct rt_unwind_row *rows = make_rows(200000, 0x1000, gap_code);

	(void)state;
	check_every_address(rows, 200000);
	free(rows);
}

static void test_sparse_rows(void **state)
{
	struct rt_unwind_row *rows = make_rows(400, 0x400000, gap_sparse);

	(void)state;
	check_every_address(rows, 400);
	free(rows);
}

static void test_repeated_pcs(void **state)
{
	struct rt_unwind_row *rows = make_rows(5000, 0x2000, gap_equal);

	(void)state;
	check_every_address(rows, 5000);
	free(rows);
}

static void test_one_row(void **state)
{
	struct rt_unwind_row row = { .pc = 0xffffff00u, .cfa = RT_CFA_OUTERMOST };

	(void)state;
	check_every_address(&row, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_like_rows),
		cmocka_unit_test(test_sparse_rows),
		cmocka_unit_test(test_repeated_pcs),
		cmocka_unit_test(test_one_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
