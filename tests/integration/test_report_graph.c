/* SPDX-License-Identifier: GPL-2.0-only */
/* test_report_graph.c: report -g's call graphs against perf report --stdio -g
 * on recordings of a real workload and of a recursion past 127 frames (the
 * rows and every line of their graphs, in both orders, with and without
 * --children), -g's usage errors,
 * and the table's row limit on a terminal, which a pipe and --stdio never get. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define FREQ 999
/* REPORT_TERMINAL_ROWS, as report --help says it */
#define TERMINAL_ROWS 100

static char *recording; /* made by the first test that needs it */

/* A recording of ls walking directories, every CPU, with stacks; no stack
 * copies (--stack-copy-budget 0): perf 6.1's libunwind unwinds a copy through
 * a library only in the first process it unwinds that library for, and the
 * graphs are compared with perf's (test_unwind_bounds compares the copies). */
static const char *shared_recording(void)
{
	char *out = NULL;
	int rc;

	if (recording)
		return recording;
	recording = tu_tempdir();
	assert_non_null(recording);
	rc = tu_sh(&out, "%s record -a -g --stack-copy-budget 0 -F %d --force -o %s -- sh -c "
			 "'for i in 1 2; do ls -lR /usr/lib /usr/share >/dev/null; done' 2>&1",
		   tu_ringtrace(), FREQ, recording);
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	free(out);
	return recording;
}

/* A row and its call graph's lines: the row's fields joined by one space
 * (ringtrace's Samples column dropped, perf's padding undone), then each
 * graph line as printed. */
struct block {
	char *text;
	size_t percent_len; /* the row's first percentage ("50.03%"): ties share it */
};

struct blocks {
	struct block *v;
	size_t nr, graph_lines, branch_lines; /* the lines of the rows kept (keep_comm) */
};

static void blocks_free(struct blocks *b)
{
	for (size_t i = 0; i < b->nr; i++)
		free(b->v[i].text);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static bool is_row(const char *line)
{
	size_t spaces = strspn(line, " "), digits = strspn(line + spaces, "0123456789.");

	return spaces && digits && line[spaces + digits] == '%';
}

/* line's fields joined by one space, the field drop (1-based, after the
 * percentages; 0: none) left out, into *out (a new string); the length of
 * its first nr_percent fields in *percent_len. 0, or -ENOMEM. */
static int append_row(char **out, const char *line, size_t len, unsigned int drop,
		      unsigned int nr_percent, size_t *percent_len)
{
	size_t used = 0, cap = len + 2;
	char *s = malloc(cap);
	unsigned int field = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < len;) {
		size_t w;

		i += strspn(line + i, " ");
		w = strcspn(line + i, " ");
		if (w > len - i)
			w = len - i;
		if (!w)
			break;
		if (++field != drop) {
			if (used)
				s[used++] = ' ';
			memcpy(s + used, line + i, w);
			used += w;
			if (field == nr_percent)
				*percent_len = used;
		}
		i += w;
	}
	s[used] = '\0';
	*out = s;
	return 0;
}

static int append_line(char **text, const char *line, size_t len)
{
	size_t old = strlen(*text);
	char *s = realloc(*text, old + len + 2);

	if (!s)
		return -ENOMEM;
	memcpy(s + old, line, len);
	s[old + len] = '\n';
	s[old + len + 1] = '\0';
	*text = s;
	return 0;
}

/* The report's rows and graph lines as blocks; comment and blank lines are
 * left out. drop: the field of a row left out (ringtrace's Samples), 0 for
 * none. 0, or -EINVAL with why in err (a graph line before any row, a line
 * neither), or -ENOMEM. */
static int parse_blocks(const char *report, unsigned int drop, struct blocks *b, char *err,
			size_t errlen)
{
	memset(b, 0, sizeof(*b));
	for (const char *line = report; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		int r = 0;

		if (!len || line[0] == '#') {
			/* a comment or a blank line */
		} else if (is_row(line)) {
			struct block *v = realloc(b->v, (b->nr + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			b->v = v;
			v[b->nr].percent_len = 0;
			r = append_row(&v[b->nr].text, line, len, drop, 1, &v[b->nr].percent_len);
			if (!r) {
				b->nr++;
				r = append_line(&v[b->nr - 1].text, "", 0);
			}
		} else if (len > 12 && !strncmp(line, "            ", 12)) {
			if (!b->nr) {
				snprintf(err, errlen, "a call graph line before any row: %.*s", (int)len, line);
				return -EINVAL;
			}
			r = append_line(&b->v[b->nr - 1].text, line, len);
		} else {
			snprintf(err, errlen, "neither a row nor a call graph line: %.*s", (int)len, line);
			return -EINVAL;
		}
		if (r)
			return r;
		line = end ? end + 1 : NULL;
	}
	return 0;
}

/* Whether a block's row is of comm (its field after the percentages). */
static bool block_of_comm(const struct block *b, unsigned int nr_percent, const char *comm)
{
	const char *p = b->text;
	size_t len = strlen(comm);

	for (unsigned int i = 0; i < nr_percent && p; i++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	return p && !strncmp(p, comm, len) && p[len] == ' ';
}

/* Only the blocks of comm's rows kept, and their graph lines counted. */
static void keep_comm(struct blocks *b, unsigned int nr_percent, const char *comm)
{
	size_t kept = 0;

	b->graph_lines = b->branch_lines = 0;
	for (size_t i = 0; i < b->nr; i++) {
		if (!block_of_comm(&b->v[i], nr_percent, comm)) {
			free(b->v[i].text);
			continue;
		}
		for (const char *p = strchr(b->v[i].text, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
			const char *end = strchr(p + 1, '\n');
			const char *branch = strstr(p + 1, "%--");

			b->graph_lines++;
			b->branch_lines += branch && (!end || branch < end);
		}
		b->v[kept++] = b->v[i];
	}
	b->nr = kept;
}

static int compare_blocks(const void *a, const void *b)
{
	return strcmp(((const struct block *)a)->text, ((const struct block *)b)->text);
}

/* Rows of equal overhead (Children with --children) in one order: perf
 * orders some of those ties by where it allocated things (its callchains'
 * files, its threads) and, with --children, by a comparison that is not
 * transitive (stack depths between rows of one thread only). */
static void sort_ties(struct blocks *b)
{
	for (size_t i = 0, j; i < b->nr; i = j) {
		for (j = i + 1; j < b->nr && b->v[j].percent_len == b->v[i].percent_len &&
				!strncmp(b->v[j].text, b->v[i].text, b->v[i].percent_len);
		     j++)
			;
		qsort(b->v + i, j - i, sizeof(b->v[0]), compare_blocks);
	}
}

/* ringtrace report --stdio OPTIONS and perf report --stdio OPTIONS on the
 * recording, as blocks, the rows of the workload's processes (comm) only: the
 * rows of others running meanwhile may hold what perf 6.1 splits apart
 * (recursion through frames without a symbol: bash's execute_command, which
 * its tree of children, ordered by two keys, fails to find), and the
 * percentages, of every sample, are what filters would change. Fails the
 * test on a failed command or a malformed output. */
static void reports(const char *dir, const char *options, bool children, const char *comm,
		    struct blocks *ours, struct blocks *theirs)
{
	char *out = NULL, err[512];
	int rc;

	rc = tu_sh(&out, "%s report %s --stdio %s 2>&1", tu_ringtrace(), dir, options);
	if (rc != 0)
		fail_msg("ringtrace report %s failed (%d):\n%.2000s", options, rc, out);
	rc = parse_blocks(out, children ? 3 : 2, ours, err, sizeof(err));
	if (rc)
		fail_msg("ringtrace report --stdio %s: %s", options, rc == -ENOMEM ? "out of memory" : err);
	free(out);
	rc = tu_sh(&out, "perf report -i %s --stdio %s 2>/dev/null", dir, options);
	if (rc != 0)
		fail_msg("perf report %s failed (%d):\n%.2000s", options, rc, out);
	rc = parse_blocks(out, 0, theirs, err, sizeof(err));
	if (rc)
		fail_msg("perf report --stdio %s: %s", options, rc == -ENOMEM ? "out of memory" : err);
	free(out);
	keep_comm(ours, children ? 2 : 1, comm);
	keep_comm(theirs, children ? 2 : 1, comm);
	sort_ties(ours);
	sort_ties(theirs);
}

/* Every row of perf report --stdio -g and its call graph on the recording in
 * dir, the rows of comm, line for line: both orders, with and without
 * --children. Fails if perf's graphs hold fewer than min_lines lines and
 * min_branches branches. */
static void call_graphs_as_perf(const char *dir, const char *comm, size_t min_lines,
				size_t min_branches)
{
	static const struct {
		const char *options;
		bool children;
	} cases[] = {
		{ "--no-children -g caller", false },
		{ "--no-children -g callee", false },
		{ "--children -g caller", true },
		{ "--children -g callee", true },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct blocks ours, theirs;
		size_t i;

		reports(dir, cases[c].options, cases[c].children, comm, &ours, &theirs);
		print_message("%s: %zu rows of %s, %zu graph lines (%zu branches) in perf's\n",
			      cases[c].options, theirs.nr, comm, theirs.graph_lines, theirs.branch_lines);
		if (!theirs.nr)
			fail_msg("perf report %s printed no row of %s", cases[c].options, comm);
		if (theirs.graph_lines < min_lines || theirs.branch_lines < min_branches)
			fail_msg("perf report %s printed fewer than %zu graph lines or %zu branches: "
				 "nothing to compare", cases[c].options, min_lines, min_branches);
		for (i = 0; i < ours.nr && i < theirs.nr; i++)
			if (strcmp(ours.v[i].text, theirs.v[i].text))
				fail_msg("report --stdio %s: row %zu and its graph are not perf's\n"
					 "ringtrace:\n%.3000s\nperf:\n%.3000s",
					 cases[c].options, i + 1, ours.v[i].text, theirs.v[i].text);
		if (ours.nr != theirs.nr)
			fail_msg("report --stdio %s: %zu rows, perf's %zu; the first extra:\n%.3000s",
				 cases[c].options, ours.nr, theirs.nr,
				 ours.nr > theirs.nr ? ours.v[i].text : theirs.v[i].text);
		blocks_free(&ours);
		blocks_free(&theirs);
	}
}

/* The rows and graphs of ls walking directories as perf's. */
static void test_call_graphs_as_perf(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	call_graphs_as_perf(shared_recording(), "ls", 1, 1);
}

/* A recursion 200 frames deep (unwindgen deeper): its stacks cut at perf
 * report's --max-stack default, 127 frames (REPORT_MAX_STACK), kernel frames
 * among them where the leaf was in a system call, as perf cuts them. */
static void test_deep_call_graphs_as_perf(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	if (tu_symgen_skip_reason())
		tu_skip("%s", tu_symgen_skip_reason());
	assert_non_null(dir);
	rc = tu_sh(&out, "%s record -g -F %d --force -o %s -- %s/unwindgen deeper 1 2>&1",
		   tu_ringtrace(), FREQ, dir, tu_symgen_dir());
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	free(out);
	/* (a stack's frames at least, one graph line each) */
	call_graphs_as_perf(dir, "unwindgen", 127, 0);
	tu_rmtree(dir);
	free(dir);
}

static void test_call_graph_usage_errors(void **state)
{
	static const struct {
		const char *options, *says;
	} cases[] = {
		{ "-g flat", "flat is perf's but not supported" },
		{ "-g graph,0.5,caller,address", "address is perf's but not supported" },
		{ "-g bogus", "\"bogus\" is no call-graph order" },
		{ "-g caller --folded", "-g prints call graphs under the table's rows" },
	};

	(void)state;
	tu_skip_unless_possible();
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *out = NULL;
		int rc = tu_sh(&out, "%s report /nonexistent %s 2>&1 >/dev/null", tu_ringtrace(),
			       cases[c].options);

		if (rc != 2 || !strstr(out, cases[c].says) || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("report %s: exit %d, wanted 2 and one line saying \"%s\":\n%s",
				 cases[c].options, rc, cases[c].says, out);
		free(out);
	}
}

static size_t count_rows(const char *text)
{
	size_t n = 0;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');

		n += is_row(line);
		line = end ? end + 1 : NULL;
	}
	return n;
}

/* On a terminal the table shows its first rows and says how many more
 * there are; into a pipe, and with --stdio on a terminal, it shows all. */
static void test_row_limit_only_on_a_terminal(void **state)
{
	char *piped = NULL, *terminal = NULL, *stdio = NULL, want[128];
	const char *dir;
	size_t all;

	(void)state;
	tu_skip_unless_possible();
	dir = shared_recording();
	assert_int_equal(tu_sh(&piped, "%s report %s --children | cat", tu_ringtrace(), dir), 0);
	all = count_rows(piped);
	if (all <= TERMINAL_ROWS)
		fail_msg("%zu rows: too few to show a limit of %d", all, TERMINAL_ROWS);
	if (strstr(piped, "more rows left out"))
		fail_msg("report into a pipe left rows out:\n%.2000s", piped);
	assert_int_equal(tu_sh(&terminal, "PAGER=cat script -qfec '%s report %s --children' /dev/null",
			       tu_ringtrace(), dir),
			 0);
	snprintf(want, sizeof(want), "# %zu more rows left out: a terminal shows the first %d",
		 all - TERMINAL_ROWS, TERMINAL_ROWS);
	if (count_rows(terminal) != TERMINAL_ROWS || !strstr(terminal, want))
		fail_msg("report on a terminal: %zu rows of %zu, wanted %d and \"%s\":\n%.2000s",
			 count_rows(terminal), all, TERMINAL_ROWS, want, terminal);
	assert_int_equal(tu_sh(&stdio, "PAGER=cat script -qfec '%s report %s --children --stdio' "
				       "/dev/null", tu_ringtrace(), dir),
			 0);
	if (count_rows(stdio) != all || strstr(stdio, "more rows left out"))
		fail_msg("report --stdio on a terminal: %zu rows of %zu", count_rows(stdio), all);
	print_message("%zu rows; a terminal shows %d\n", all, TERMINAL_ROWS);
	free(piped);
	free(terminal);
	free(stdio);
}

static int remove_recording(void **state)
{
	(void)state;
	if (recording) {
		tu_rmtree(recording);
		free(recording);
		recording = NULL;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_graph_usage_errors),
		cmocka_unit_test(test_call_graphs_as_perf),
		cmocka_unit_test(test_deep_call_graphs_as_perf),
		cmocka_unit_test(test_row_limit_only_on_a_terminal),
	};
	const char *reason = tu_integration_skip_reason();

	if (!reason && system("command -v perf >/dev/null 2>&1 && command -v script >/dev/null 2>&1"))
		reason = "perf or script (util-linux) is not installed: perf report is what -g is "
			 "compared with, script gives report a terminal";
	tu_set_skip_reason(reason);
	return cmocka_run_group_tests(tests, NULL, remove_recording);
}
