/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_table.c: the rows compiled from .eh_frame and .debug_frame agree
 * with every row binutils' readelf --debug-dump=frames-interp prints, for
 * unwindgen (with either section) and libc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/unwind_table.h"
#include "test_util.h"

struct agreement {
	size_t rows, agreed, fdes;
	size_t debug_frame_rows; /* of rows, those of .debug_frame */
};

/* The column of readelf's header line named name ("CFA", "rbp", "ra"), or -1. */
static int column_of(char *const *cols, int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static int split(char *line, char **cols, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
		cols[n++] = tok;
	return n;
}

/* Whether our row at loc says what readelf's CFA, rbp and ra columns say. */
static bool row_agrees(const struct unwind_table *t, uint64_t loc, const char *cfa,
		       const char *rbp, const char *ra)
{
	const struct unwind_row *r = unwind_table_find(t, loc);
	char want[32];

	if (!r)
		return false;
	/* the signal trampoline's FDE (libc's __restore_rt) describes the
	 * ucontext with expressions: ours reads the ucontext */
	if (r->cfa == UNWIND_CFA_SIGNAL)
		return !strcmp(cfa, "exp");
	if (!strcmp(ra, "u"))
		return r->cfa == UNWIND_CFA_OUTERMOST;
	if (!strcmp(cfa, "exp"))
		return r->cfa == UNWIND_CFA_PLT10 || r->cfa == UNWIND_CFA_PLT11 ||
		       r->cfa == UNWIND_CFA_EXPRESSION;
	if (strcmp(ra, "c-8"))
		return r->cfa == UNWIND_CFA_EXPRESSION;
	if (r->cfa != UNWIND_CFA_RSP && r->cfa != UNWIND_CFA_RBP)
		return false;
	snprintf(want, sizeof(want), "%s%+d", r->cfa == UNWIND_CFA_RSP ? "rsp" : "rbp",
		 r->cfa_offset);
	if (strcmp(want, cfa))
		return false;
	if (!rbp || !strcmp(rbp, "s"))
		return r->rbp == UNWIND_RBP_SAME;
	/* readelf's "u" is no rule in the FDE: for a callee-saved register
	 * the x86-64 ABI's default, the same value (as libdw reads it) */
	if (!strcmp(rbp, "u"))
		return r->rbp == UNWIND_RBP_UNDEFINED || r->rbp == UNWIND_RBP_SAME;
	snprintf(want, sizeof(want), "c%+d", r->rbp_offset);
	return r->rbp == UNWIND_RBP_SAVED && !strcmp(want, rbp);
}

/* Every row readelf interprets in path's .eh_frame and .debug_frame, checked
 * against ours. */
static void compare_with_readelf(const char *path, const struct unwind_table *t,
				 struct agreement *a)
{
	char cmd[1024], line[4096], header[4096], *cols[64], *hcols[64];
	int ncols = 0, cfa_col = -1, rbp_col = -1, ra_col = -1;
	bool in_fde = false, in_debug_frame = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	header[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		unsigned long long loc;
		int n;

		if (strstr(line, "Contents of the ")) {
			in_debug_frame = strstr(line, " .debug_frame ") != NULL;
			in_fde = false;
			continue;
		}
		if (strstr(line, " FDE ")) {
			a->fdes++;
			in_fde = true;
			ncols = 0;
			continue;
		}
		if (strstr(line, " CIE ")) {
			in_fde = false;
			ncols = 0;
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			snprintf(header, sizeof(header), "%s", line);
			ncols = split(header, hcols, 64);
			cfa_col = column_of(hcols, ncols, "CFA");
			rbp_col = column_of(hcols, ncols, "rbp");
			ra_col = column_of(hcols, ncols, "ra");
			continue;
		}
		if (!in_fde || !ncols || cfa_col < 0 || ra_col < 0)
			continue;
		n = split(line, cols, 64);
		if (n != ncols || sscanf(cols[0], "%llx", &loc) != 1)
			continue;
		a->rows++;
		a->debug_frame_rows += in_debug_frame;
		if (row_agrees(t, loc, cols[cfa_col], rbp_col >= 0 ? cols[rbp_col] : NULL,
			       cols[ra_col]))
			a->agreed++;
		else if (a->rows - a->agreed <= 5)
			print_message("%s: at %#llx readelf says CFA %s rbp %s ra %s\n", path, loc,
				      cols[cfa_col], rbp_col >= 0 ? cols[rbp_col] : "-", cols[ra_col]);
	}
	pclose(p);
}

static void check_file(const char *path, struct agreement *a)
{
	struct unwind_table t;
	enum unwind_refusal why;
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	if (unwind_table_build(fd, NULL, &t, &why, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	close(fd);
	assert_true(t.nr > 0);
	for (size_t i = 1; i < t.nr; i++)
		assert_true(t.rows[i - 1].pc < t.rows[i].pc);
	assert_int_equal(t.rows[t.nr - 1].cfa, UNWIND_CFA_NONE);
	compare_with_readelf(path, &t, a);
	unwind_table_free(&t);
	print_message("%s: %zu of %zu rows (%zu of .debug_frame) of %zu FDEs agree\n", path,
		      a->agreed, a->rows, a->debug_frame_rows, a->fdes);
}

/* The path of the test program name in SYMGEN_DIR (skips without it). */
static void symgen_path(char *path, size_t size, const char *name)
{
	const char *dir = getenv("SYMGEN_DIR");

	if (!dir)
		tu_skip("SYMGEN_DIR is not set: run through make check");
	snprintf(path, size, "%s/%s", dir, name);
}

/* unwindgen (built -fomit-frame-pointer): every row, its PLT's expression
 * and _start's undefined return address among them. */
static void test_unwindgen_rows_match_readelf(void **state)
{
	struct agreement a = { 0 };
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	check_file(path, &a);
	assert_true(a.rows >= 10);
	assert_int_equal(a.agreed, a.rows);
}

/* unwindgen built without unwind tables (-fno-asynchronous-unwind-tables
 * -g): its own functions described only by .debug_frame, the C runtime's by
 * .eh_frame; both sections' rows, as readelf reads each. */
static void test_debug_frame_rows_match_readelf(void **state)
{
	struct agreement a = { 0 };
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen_debugframe");
	check_file(path, &a);
	assert_true(a.debug_frame_rows >= 5);
	assert_int_equal(a.agreed, a.rows);
}

/* libc: thousands of functions, hand-written assembly, a signal trampoline. */
static void test_libc_rows_match_readelf(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct agreement a = { 0 };

	(void)state;
	if (access(libc, R_OK))
		tu_skip("no %s on this machine", libc);
	check_file(libc, &a);
	assert_true(a.rows >= 1000);
	assert_int_equal(a.agreed, a.rows);
}

/* Addresses outside any FDE fall back to frame pointers. */
static void test_gaps_are_none(void **state)
{
	const struct unwind_row *r;
	struct unwind_table t;
	enum unwind_refusal why;
	char path[512], err[256];
	int fd;

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_table_build(fd, NULL, &t, &why, err, sizeof(err)), 0);
	close(fd);
	assert_null(unwind_table_find(&t, 0));
	r = unwind_table_find(&t, t.rows[t.nr - 1].pc + 100);
	assert_non_null(r);
	assert_int_equal(r->cfa, UNWIND_CFA_NONE);
	unwind_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwindgen_rows_match_readelf),
		cmocka_unit_test(test_debug_frame_rows_match_readelf),
		cmocka_unit_test(test_libc_rows_match_readelf),
		cmocka_unit_test(test_gaps_are_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
