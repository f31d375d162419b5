/* SPDX-License-Identifier: GPL-2.0-only */
/* test_record.c: records the load generator system-wide with real BPF and checks
 * the hot function, sample counts, perf's view of the files, and how it stops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/monotonic.h"

#include "test_util.h"

#define FREQ 999
#define SECONDS 2

/* The CPU the load generator is pinned to: the last one. */
static int busy_cpu(void)
{
	return tu_online_cpus() - 1;
}

/* record SCOPE -g of the load generator in mode ("-a": every process; "":
 * the generator's), its totals checked. Without
 * stack copies (--stack-copy-budget 0): the rows of these recordings are
 * compared with perf report's, and perf 6.1's libunwind unwinds a copy
 * through a library only in the first process it unwinds that library for
 * (a busy machine's new processes have copies); test_unwind_bounds compares
 * the copies with perf. */
static char *record_loadgen_in(const char *scope, const char *mode)
{
	char *dir = tu_tempdir(), *out = NULL, *totals = NULL, *line;
	int rc;

	assert_non_null(dir);
	rc = tu_sh(&out, "%s record %s -g --stack-copy-budget 0 -F %d --force -o %s -- %s --cpu %d %s %d 2>&1",
		   tu_ringtrace(), scope, FREQ, dir, tu_loadgen(), busy_cpu(), mode, SECONDS);
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	if (!strstr(out, "samples") || !strstr(out, "lost"))
		fail_msg("no end-of-recording totals:\n%s", out);
	/* and the same totals in DIR/totals, as printed */
	line = strstr(out, "ringtrace: recorded ");
	assert_non_null(line);
	line = strndup(line, strcspn(line, "\n"));
	assert_int_equal(tu_sh(&totals, "cat %s/totals", dir), 0);
	if (!strstr(totals, line) || !strstr(totals, "   all "))
		fail_msg("%s/totals is not the summary printed:\n%s\nprinted:\n%s", dir, totals, out);
	free(line);
	free(totals);
	free(out);
	return dir;
}

static char *record_loadgen(const char *mode)
{
	return record_loadgen_in("-a", mode);
}

/* Samples in data.cpuN (every CPU's file if cpu < 0), and the times of the
 * first and the last. */
static uint64_t count_samples(const char *dir, int cpu, uint64_t *first, uint64_t *last)
{
	const struct perf_event_header *rec;
	struct tu_records r;
	char name[64];
	uint64_t n = 0;

	*first = *last = 0;
	tu_records_open(&r, dir, 0);
	snprintf(name, sizeof(name), "/data.cpu%d", cpu);
	while (tu_records_next(&r, &rec)) {
		struct perf_sample s;

		if (cpu >= 0 && !strstr(r.in.files[r.file].path, name))
			continue;
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(perf_sample_decode_regs(rec, r.in.events[0].attr.sample_type,
						 r.in.events[0].attr.sample_regs_user, &s),
				 0);
		if (cpu >= 0)
			assert_int_equal(s.cpu, cpu);
		if (!*first || s.time < *first)
			*first = s.time;
		if (s.time > *last)
			*last = s.time;
		n++;
	}
	tu_records_close(&r);
	return n;
}

/* Parses a report row "  12.34%  123  [.] name" into its percentage and symbol. */
static int parse_row(const char *line, double *pct, char *sym, size_t len)
{
	const char *p = strstr(line, "%");
	const char *s = strstr(line, "] ");

	if (!p || !s || sscanf(line, "%lf%%", pct) != 1)
		return -1;
	snprintf(sym, len, "%s", s + 2);
	sym[strcspn(sym, " \n")] = '\0';
	return 0;
}

/* Whether a row of a report sorted by comm, then sym, is of comm (the
 * word before the symbol's "[.]" or "[k]"). */
static bool row_of_comm(const char *line, const char *comm)
{
	const char *end = strstr(line, " ["), *start;

	if (!end)
		return false;
	while (end > line && end[-1] == ' ')
		end--;
	for (start = end; start > line && start[-1] != ' ';)
		start--;
	return (size_t)(end - start) == strlen(comm) && !strncmp(start, comm, strlen(comm));
}

/* The first n rows of a report (ringtrace's or perf's: '#' lines skipped),
 * only those of comm unless it is NULL (the report sorted by comm, sym). */
static int top_rows_of(const char *text, const char *comm, int n, double *pcts, char syms[][128])
{
	int got = 0;

	for (const char *line = text; line && *line && got < n; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!*line || *line == '#' || *line == '\n' || (comm && !row_of_comm(line, comm)))
			continue;
		if (!parse_row(line, &pcts[got], syms[got], sizeof(syms[got])))
			got++;
	}
	return got;
}

static int top_rows(const char *text, int n, double *pcts, char syms[][128])
{
	return top_rows_of(text, NULL, n, pcts, syms);
}

static void test_hot_function_tops_its_process(void **state)
{
	char *dir, *out = NULL, sym[128];
	double pct;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = record_loadgen("spin");
	rc = tu_sh(&out, "%s report %s --comm loadgen --sort sym", tu_ringtrace(), dir);
	assert_int_equal(rc, 0);
	{
		double p[1];
		char s[1][128];

		assert_int_equal(top_rows(out, 1, p, s), 1);
		pct = p[0];
		snprintf(sym, sizeof(sym), "%s", s[0]);
	}
	if (strcmp(sym, "loadgen_hot_loop") || pct <= 80.0)
		fail_msg("top symbol of loadgen is %s at %.2f%%, wanted loadgen_hot_loop over 80%%:\n%s",
			 sym, pct, out);
	free(out);

	rc = tu_sh(&out, "perf script -i %s 2>&1", dir);
	assert_int_equal(rc, 0);
	if (!strstr(out, "loadgen_hot_loop"))
		fail_msg("perf script does not name loadgen_hot_loop");
	/* -g: the user callchain unwinds through the caller (frame pointers) */
	if (!strstr(out, "spin_thread"))
		fail_msg("perf script shows no callchain through spin_thread");
	free(out);

	rc = tu_sh(&out, "perf report -i %s --stdio 2>&1", dir);
	assert_int_equal(rc, 0);
	if (!strstr(out, "loadgen_hot_loop"))
		fail_msg("perf report does not name loadgen_hot_loop:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_busy_cpu_sample_count_matches_frequency(void **state)
{
	char *dir;
	uint64_t first, last, n;
	double span, expected_nominal, expected_span;

	(void)state;
	tu_skip_unless_possible();
	dir = record_loadgen("spin");
	n = count_samples(dir, busy_cpu(), &first, &last);
	span = (double)(last - first) / 1e9;
	expected_nominal = FREQ * (double)SECONDS;
	expected_span = FREQ * span;
	print_message("CPU %d: %llu samples over %.3f s (F x s = %.0f nominal, %.0f measured)\n",
		      busy_cpu(), (unsigned long long)n, span, expected_nominal, expected_span);
	if (fabs((double)n - expected_nominal) > 0.15 * expected_nominal ||
	    fabs((double)n - expected_span) > 0.15 * expected_span)
		fail_msg("%llu samples on the busy CPU, not within 15%% of %.0f", (unsigned long long)n,
			 expected_nominal);
	tu_rmtree(dir);
	free(dir);
}

/* ringtrace report and perf report agree on the top 5 symbols of the
 * workload, in order, and on their percentages within 1 point. (The
 * machine's other processes are left out: a busy JVM's or Node.js's JIT
 * code, which ringtrace names from the maps it keeps and perf cannot,
 * once took the top row.) */
static void test_top_symbols_agree_with_perf(void **state)
{
	char *dir, *ours = NULL, *theirs = NULL;
	double po[5], pp[5];
	char so[5][128], sp[5][128];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = record_loadgen("mix");
	rc = tu_sh(&ours, "%s report %s --sort comm,sym", tu_ringtrace(), dir);
	assert_int_equal(rc, 0);
	rc = tu_sh(&theirs,
		   "perf report -i %s --stdio --no-children --sort comm,sym -g none 2>/dev/null", dir);
	assert_int_equal(rc, 0);
	if (top_rows_of(ours, "loadgen", 5, po, so) != 5 ||
	    top_rows_of(theirs, "loadgen", 5, pp, sp) != 5)
		fail_msg("fewer than 5 rows:\nringtrace:\n%s\nperf:\n%s", ours, theirs);
	for (int i = 0; i < 5; i++) {
		print_message("#%d ringtrace %-28s %6.2f%%   perf %-28s %6.2f%%\n", i + 1, so[i], po[i],
			      sp[i], pp[i]);
		if (strcmp(so[i], sp[i]) || fabs(po[i] - pp[i]) > 1.0)
			fail_msg("row %d differs: ringtrace %s %.2f%%, perf %s %.2f%%", i + 1, so[i],
				 po[i], sp[i], pp[i]);
	}
	free(ours);
	free(theirs);
	tu_rmtree(dir);
	free(dir);
}

/* The end of a recording: one line (where, how long, samples, lost,
 * bytes); the per-CPU table with -v; nothing with -q when nothing was lost.
 * DIR/totals holds it all whatever was shown. */
static void test_summary_is_short(void **state)
{
	static const struct {
		const char *flag;
		int lines;
		bool table;
	} runs[] = { { "", 1, false }, { "-v", 5, true }, { "-q", 0, false } };
	char *dir = tu_tempdir(), *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		int lines = 0;

		assert_int_equal(tu_sh(&out, "%s record -a %s --force -o %s/rec -- sleep 0.2 2>&1 >/dev/null",
				       tu_ringtrace(), runs[i].flag, dir),
				 0);
		for (const char *p = out; *p; p++)
			lines += *p == '\n';
		print_message("record %s:\n%s", runs[i].flag, out);
		/* -v: the header, a row per CPU and all, then the line */
		if ((runs[i].table ? lines != tu_online_cpus() + 3 : lines != runs[i].lines) ||
		    (runs[i].lines && !strstr(out, "ringtrace: recorded ")) ||
		    (strstr(out, "kernel-lost") != NULL) != runs[i].table)
			fail_msg("record %s printed %d lines at its end:\n%s", runs[i].flag, lines, out);
		free(out);
		assert_int_equal(tu_sh(&out, "cat %s/rec/totals", dir), 0);
		assert_non_null(strstr(out, "kernel-lost"));
		assert_non_null(strstr(out, "ringtrace: recorded "));
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

/* Whether every line of text is about losses ("lost", or the summary of a
 * recording that lost some): what -q still prints. */
static bool only_losses(const char *text)
{
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char copy[1024];

		snprintf(copy, sizeof(copy), "%.*s", (int)len, line);
		if (!strstr(copy, "lost") || strstr(copy, " 0 lost,"))
			return false;
		line += len + (end != NULL);
	}
	return true;
}

/* With kernel.bpf_stats_enabled=1, which another tool may have set, -q is
 * still quiet: the programs' run times are -v's. */
static void test_quiet_with_bpf_stats(void **state)
{
	static const char *const runs[] = { "-a", "-a -g", "-a -e sched:sched_switch" };
	char *dir = tu_tempdir(), *out = NULL, *was = NULL, *restored = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	assert_int_equal(tu_sh(&was, "cat /proc/sys/kernel/bpf_stats_enabled"), 0);
	assert_int_equal(tu_sh(&out, "echo 1 > /proc/sys/kernel/bpf_stats_enabled"), 0);
	free(out);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		rc = tu_sh(&out, "%s record -q %s --force -o %s/rec -- sleep 0.3 2>&1 >/dev/null",
			   tu_ringtrace(), runs[i], dir);
		print_message("record -q %s: %zu bytes printed\n", runs[i], strlen(out));
		if (rc || !only_losses(out)) {
			tu_sh(&restored, "echo %d > /proc/sys/kernel/bpf_stats_enabled", atoi(was));
			fail_msg("record -q %s with bpf_stats on: exit %d, printed:\n%s", runs[i], rc,
				 out);
		}
		free(out);
	}
	rc = tu_sh(&out, "%s record -v -a --force -o %s/rec -- sleep 0.3 2>&1 >/dev/null",
		   tu_ringtrace(), dir);
	free(restored);
	restored = NULL;
	tu_sh(&restored, "echo %d > /proc/sys/kernel/bpf_stats_enabled", atoi(was));
	if (rc || !strstr(out, "ringtrace: BPF run time (kernel.bpf_stats_enabled): "))
		fail_msg("record -v with bpf_stats on: exit %d, no run times:\n%s", rc, out);
	free(out);
	free(was);
	free(restored);
	tu_rmtree(dir);
	free(dir);
}

/* report -n --stdio's rows are perf report -n --stdio's, byte for byte
 * (the header lines aside): the columns' widths and padding, the order of
 * rows of equal weight by --sort's keys, perf's thread key for "pid"; with
 * and without --children, for several --sort lists. The command's own
 * threads (not -a: perf 6.1 splits one address's --children row between
 * threads of a process where other processes' samples interleave). */
static void test_report_rows_as_perf(void **state)
{
	static const char *const sorts[] = { "", "--sort sym", "--sort pid,sym", "--sort dso,sym",
					     "--sort pid", "--sort dso", "--sort comm,cpu",
					     "--sort sym,pid" };
	char *dir = tu_tempdir(), *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	rc = tu_sh(&out, "%s record -g --force -o %s -- %s mix 0.5 2>&1", tu_ringtrace(), dir,
		   tu_loadgen());
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
		for (int children = 0; children < 2; children++) {
			rc = tu_sh(&out, "cd %s && %s report . -n --stdio %s %s | grep -v '^#' > ours && "
					 "perf report -i . -n --stdio %s -g none %s 2>/dev/null | "
					 "grep -v '^#' | grep -v '^$' > theirs && "
					 "echo \"$(wc -l < theirs) rows\"; diff ours theirs | head -8",
				   dir, tu_ringtrace(), children ? "--children" : "", sorts[i],
				   children ? "--children" : "--no-children", sorts[i]);
			print_message("%s%s: %s", children ? "--children " : "", sorts[i], out);
			if (rc || !strstr(out, " rows\n") || strstr(out, "\n<") || strstr(out, "\n>") ||
			    !strncmp(out, "0 rows", 6))
				fail_msg("report -n --stdio %s%s: rows are not perf's (<: ringtrace, >: perf):\n%s",
					 children ? "--children " : "", sorts[i], out);
			free(out);
		}
	tu_rmtree(dir);
	free(dir);
}

/* report --header-only prints what perf report --header-only prints of
 * the same recording, byte for byte: the header file's offsets, every
 * feature ringtrace writes (the command line with a ' in it, the events with
 * their ids and attrs, a sampled event with -g and tracepoints), the missing
 * features; report --header the same block, then its table. */
static void test_report_header_as_perf(void **state)
{
	static const char *const recordings[] = {
		"-g -F 499 -- sh -c \"echo 'a b'; %s spin 0.2\"",
		"-e sched:sched_switch -e syscalls:sys_enter_getpid -a -- %s getpid 100",
	};
	char *dir = tu_tempdir(), *out = NULL, args[512];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(recordings) / sizeof(recordings[0]); i++) {
		snprintf(args, sizeof(args), recordings[i], tu_loadgen());
		rc = tu_sh(&out, "%s record --force -o %s/rec %s 2>&1", tu_ringtrace(), dir, args);
		if (rc)
			fail_msg("record %s failed:\n%s", args, out);
		free(out);
		rc = tu_sh(&out, "cd %s && %s report rec --header-only > ours && "
				 "perf report -i rec --header-only > theirs 2>/dev/null && "
				 "%s report rec --header --stdio > table && "
				 "echo \"$(wc -l < ours) lines\"; grep -c '^# event : name = ' ours; "
				 "grep -h '^# cmdline' ours; diff ours theirs; "
				 "head -n \"$(wc -l < theirs)\" table | diff - theirs; "
				 "sed -n \"$(( $(wc -l < theirs) + 1 ))p\" table",
			   dir, tu_ringtrace(), tu_ringtrace());
		print_message("record %s: %s", args, out);
		if (rc || strstr(out, "\n<") || strstr(out, "\n>") || !strstr(out, "# cmdline : record --force -o ") ||
		    !strstr(out, "\n# ringtrace report of rec\n") ||
		    !strstr(out, i ? "\n3\n" : "\n2\n") || (!i && !strstr(out, " echo \\'a b\\'; ")))
			fail_msg("report --header(-only) of record %s is not perf's (<: ringtrace, >: perf):\n%s",
				 args, out);
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

/* report --percent-limit leaves out the rows perf report's leaves out: the
 * same percentages are shown, with and without --children (but for a name
 * perf prints on two rows: perf 6.1 splits some rows of an address between
 * threads or mappings of a process). */
static void test_percent_limit_as_perf(void **state)
{
	static const char *const modes[][2] = { { "", "--no-children" },
						 { "--children", "--children" } };
	static const char rows[] = "awk '!/^#/ && NF { print $1, $NF }' | sort";
	char *dir = NULL, *out = NULL;
	int rc = 0;

	(void)state;
	tu_skip_unless_possible();
	/* the generator's samples alone: in a system-wide recording, a busy
	 * machine's other processes have rows of their own, a Python
	 * process's not named or counted as perf does (see
	 * test_children_rows_as_perf); recorded again once if a row differs */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (dir) {
			print_message("rows differ from perf's, recorded again\n");
			tu_rmtree(dir);
			free(dir);
		}
		dir = record_loadgen_in("", "mix");
		for (size_t m = 0; m < 2; m++) {
			/* the first column and the name of each row: ringtrace
			 * prints Samples beside the percentages, perf (-g none)
			 * does not */
			free(out);
			rc = tu_sh(&out, "cd %s && %s report . %s --sort sym --percent-limit 0.5 | %s > ours && "
					 "perf report -i . --stdio %s --sort sym -g none --percent-limit 0.5 "
					 "2>/dev/null | %s > theirs && "
					 "awk '{ print $2 }' theirs | sort | uniq -d > split; "
					 "grep -vwFf split ours > a; grep -vwFf split theirs > b; "
					 "echo \"$(wc -l < a) rows\"; diff a b",
				   dir, tu_ringtrace(), modes[m][0], rows, modes[m][1], rows);
			print_message("%s: %s", modes[m][1], out);
			if (rc || !strncmp(out, "0 rows", 6)) {
				rc = rc ? rc : 1;
				break;
			}
		}
		if (!rc)
			break;
	}
	if (rc)
		fail_msg("--percent-limit 0.5: ringtrace's rows are not perf's (<: ringtrace, >: perf):\n%s",
			 out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* How many times needle is in text. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Two copies of a program at two paths are one file to perf's sort keys (by
 * its short name) and each function of theirs one row (by its start), with
 * --sort sym as with --sort dso,sym: the rows are perf's. Recorded without
 * stack copies (--stack-copy-budget 0): perf's libunwind unwinds a copy only
 * to start_thread in the second of two processes mapping one libc, and only
 * to __libc_start_call_main in a process that exec'd from one with libc
 * mapped, as it does in its own --call-graph dwarf recordings
 * (test_unwind_bounds compares the copies with perf). */
static void test_copies_of_a_program_one_row_as_perf(void **state)
{
	static const char *const sorts[] = { "sym", "dso,sym" };
	static const char rows[] = "awk '!/^#/ && NF { print $1, $2, $NF }' | sort";
	char *dir = tu_tempdir(), *ours = NULL, *theirs = NULL, *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	rc = tu_sh(&out, "mkdir %s/a %s/b && cp %s %s/a/loadgen && cp %s %s/b/loadgen && "
			 "%s record -g --stack-copy-budget 0 -F %d --force -o %s/rec -- sh -c "
			 "'%s/a/loadgen spin 1 & %s/b/loadgen spin 1; wait' 2>&1",
		   dir, dir, tu_loadgen(), dir, tu_loadgen(), dir, tu_ringtrace(), FREQ, dir, dir,
		   dir);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	free(out);
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++) {
		assert_int_equal(tu_sh(&ours, "%s report %s/rec --children --sort %s | %s",
				       tu_ringtrace(), dir, sorts[i], rows), 0);
		assert_int_equal(tu_sh(&theirs, "perf report -i %s/rec --stdio --children --sort %s "
						"-g none 2>/dev/null | %s", dir, sorts[i], rows), 0);
		print_message("--sort %s: %zu rows\n", sorts[i], count_of(ours, "\n"));
		if (strcmp(ours, theirs))
			fail_msg("--sort %s: ringtrace's rows are not perf's:\nringtrace:\n%s\nperf:\n%s",
				 sorts[i], ours, theirs);
		/* both copies' hot loop: one row */
		assert_int_equal(count_of(ours, " loadgen_hot_loop\n"), 1);
		free(ours);
		free(theirs);
	}
	tu_rmtree(dir);
	free(dir);
}

/* report --children's rows are perf report --children's: an address without
 * a symbol is a leaf's row by its offset in its file and a caller's by its
 * address, one per process (ls is stripped: its own functions have no
 * names). Compared as sets of (children, self, [k] or [.], symbol), and in
 * order under perf's default keys (comm, dso, sym: ties of names before
 * addresses, files by their names), leaving out a name perf prints on two
 * rows (perf 6.1 splits some rows of an address between threads of a
 * process). Without stack copies, as the test before. The workload's
 * processes alone: another's samples in a system-wide recording may hold
 * frames perf does not name or count alike (a Python process's: perf
 * reads their names from /tmp only, and gives a sample in the interpreter
 * to _PyEval_EvalFrameDefault where ringtrace gives it to the Python
 * function: docs/stacks.md), and a busy machine runs what it runs. */
static void test_children_rows_as_perf(void **state)
{
	static const char rows[] = "awk '!/^#/ && NF { print $1, $2, $(NF - 1), $NF }'";
	char *dir = tu_tempdir(), *ours = NULL, *theirs = NULL, *diff = NULL, *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(dir);
	rc = tu_sh(&out, "%s record -g --stack-copy-budget 0 -F %d --force -o %s -- sh -c "
			 "'for i in 1 2 3; do ls -lR /usr/lib /usr/share >/dev/null; done' 2>&1",
		   tu_ringtrace(), FREQ, dir);
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	rc = tu_sh(&ours, "%s report %s --children --sort sym | %s | sort > %s/ours; cat %s/ours",
		   tu_ringtrace(), dir, rows, dir, dir);
	assert_int_equal(rc, 0);
	rc = tu_sh(&theirs, "perf report -i %s --stdio --children --sort sym -g none 2>/dev/null | "
			    "%s | sort > %s/theirs; cat %s/theirs", dir, rows, dir, dir);
	assert_int_equal(rc, 0);
	rc = tu_sh(&diff, "cd %s && awk '{ print $4 }' theirs | sort | uniq -d > split; "
			  "grep -vwFf split ours > a; grep -vwFf split theirs > b; diff a b", dir);
	print_message("%zu rows; rows of callers' addresses: %zu\n", count_of(ours, "\n"),
		      count_of(ours, " 0.00% [.] 0x00005"));
	if (rc != 0)
		fail_msg("report --children rows are not perf's (<: ringtrace, >: perf):\n%s", diff);
	if (!count_of(ours, " 0.00% [.] 0x00005"))
		fail_msg("no caller without a symbol among the rows (ls unwound?):\n%s", ours);
	/* perf's default keys (comm, dso, sym), in order: ties as perf's */
	free(diff);
	rc = tu_sh(&diff, "cd %s && %s report . --children | "
			  "awk '!/^#/ && NF { $3 = \"\"; $0 = $0; $1 = $1; print }' | "
			  "grep -vwFf split > a; perf report -i . --stdio --children -g none 2>/dev/null | "
			  "awk '!/^#/ && NF { $1 = $1; print }' | grep -vwFf split > b; diff a b",
		   dir, tu_ringtrace());
	if (rc != 0)
		fail_msg("report --children's rows are not in perf's order (<: ringtrace, >: perf):\n%s",
			 diff);
	free(out);
	free(ours);
	free(theirs);
	free(diff);
	tu_rmtree(dir);
	free(dir);
}

/* Records cmd (sh, in dir) with --call-graph dwarf, then fails unless
 * report --children's rows are perf's, in perf's order, and perf's rows (in
 * the file b) pass the shell test perf_check (what, if not). perf's unwinding
 * gives up on a sample now and then (a page fault in ld.so as a process
 * starts: no user frame at all, where ringtrace has the ip's and perf's
 * children rows lack that function), so a recording whose rows differ is
 * made again, twice at most, before the test fails. */
static void dwarf_children_rows_as_perf(const char *dir, const char *cmd, const char *perf_check,
					const char *what)
{
	char *out = NULL, *diff = NULL;
	int rc;

	for (int run = 0; run < 3; run++) {
		if (diff)
			print_message("rows differ from perf's, recorded again:\n%s", diff);
		free(diff);
		rc = tu_sh(&out, "cd %s && %s record --call-graph dwarf -F %d --force -o %s/rec -- %s "
				 "2>&1 >/dev/null",
			   dir, tu_ringtrace(), FREQ, dir, cmd);
		if (rc != 0)
			fail_msg("ringtrace record failed (%d):\n%s", rc, out);
		free(out);
		rc = tu_sh(&diff, "cd %s/rec && %s report . --children > table && "
				  "awk '!/^#/ && NF { $3 = \"\"; $0 = $0; $1 = $1; print }' table > a && "
				  "perf report -i . --stdio --children -g none 2>/dev/null | "
				  "awk '!/^#/ && NF { $1 = $1; print }' > b && %s && diff a b | cut -c1-300",
			   dir, tu_ringtrace(), perf_check);
		if (rc != 0)
			fail_msg("report failed, or perf has %s:\n%s", what, diff);
		if (!diff[0])
			break;
	}
	if (diff[0])
		fail_msg("report --children's rows of a dwarf recording are not perf's "
			 "(<: ringtrace, >: perf):\n%s", diff);
	free(diff);
}

/* A --call-graph dwarf recording's rows as perf's, in perf's order: a
 * function inlined at a frame is a row "NAME (inlined)", a sample's self
 * goes to its ip's symbol, not to a function inlined there (libc6-dbg
 * names __GI___libc_read, __memcpy_avx512_unaligned_erms where the symbols
 * are read, __memmove_avx512_unaligned_erms). */
static void test_children_rows_of_dwarf_as_perf(void **state)
{
	char *dir = tu_tempdir(), cmd[4096];

	(void)state;
	tu_skip_unless_possible();
	assert_int_equal(tu_sh(NULL, "head -c 3000000 %s > %s/in", tu_ringtrace(), dir), 0);
	snprintf(cmd, sizeof(cmd), "xz -9 -c %s/in", dir);
	dwarf_children_rows_as_perf(dir, cmd, "grep -q '(inlined)' b", "no inlined row");
	tu_rmtree(dir);
	free(dir);
}

/* A function inlined into two (symgen_inline: mix into first and second,
 * apart in the file) is two rows "mix (inlined)" of --children, one per
 * function it is inlined in, as perf's (which merged them before 2026-11-27
 * into one: a libc sample through tcache_init inlined into malloc and into
 * tcache_init.part.0 made the dwarf test above fail now and then). */
static void test_inlined_row_per_caller_as_perf(void **state)
{
	char *dir = tu_tempdir(), cmd[4096];

	(void)state;
	tu_skip_unless_possible();
	snprintf(cmd, sizeof(cmd), "%s/symgen_inline 1", tu_symgen_dir());
	dwarf_children_rows_as_perf(dir, cmd, "[ $(grep -c 'mix (inlined)$' b) = 2 ]",
				    "not two rows of mix");
	tu_rmtree(dir);
	free(dir);
}

/* The same built by clang, which writes no .debug_aranges (libdw 0.188
 * finds no unit there by them): the inlined frames are found through the
 * units' own ranges, the rows are perf's (binutils reads those too). */
static void test_inlined_rows_of_clang_file_as_perf(void **state)
{
	char *dir = tu_tempdir(), cmd[4096], check[4096];

	(void)state;
	tu_skip_unless_possible();
	snprintf(cmd, sizeof(cmd), "%s/symgen_inline_clang 1", tu_symgen_dir());
	snprintf(check, sizeof(check),
		 "! readelf -S %s/symgen_inline_clang | grep -q debug_aranges && "
		 "[ $(grep -c 'mix (inlined)$' b) = 2 ]", tu_symgen_dir());
	dwarf_children_rows_as_perf(dir, cmd, check, "not two rows of mix (or the file has aranges)");
	tu_rmtree(dir);
	free(dir);
}

/* A name of over 1024 bytes (symgen_cxx's caller of spin, a template of a
 * type nested 64 deep: 1568) is printed whole in report's rows, as perf
 * prints it; the rows of report --children are perf's, in perf's order. */
static void test_long_names_whole_as_perf(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *diff = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	if (tu_symgen_skip_reason())
		tu_skip("%s", tu_symgen_skip_reason());
	/* without stack copies, as record_loadgen: perf unwinds them with
	 * inlined frames of its own */
	rc = tu_sh(&out, "%s record -g --stack-copy-budget 0 --force -o %s -- %s/symgen_cxx 0.5 2>&1",
		   tu_ringtrace(), dir,
		   tu_symgen_dir());
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	free(out);
	rc = tu_sh(&diff, "cd %s && %s report . --children > table && "
			  "awk '!/^#/ && NF { $3 = \"\"; $0 = $0; $1 = $1; print }' table > a && "
			  "perf report -i . --stdio --children -g none 2>/dev/null | "
			  "awk '!/^#/ && NF { $1 = $1; print }' > b && "
			  "grep 'long_named_caller<' a | awk 'length($0) > 1500' | grep -q '> > >$' && "
			  "diff a b | cut -c1-300",
		   dir, tu_ringtrace());
	if (rc != 0 || diff[0])
		fail_msg("report --children's rows are not perf's, or the long name is cut "
			 "(<: ringtrace, >: perf):\n%s", diff);
	free(diff);
	tu_rmtree(dir);
	free(dir);
}

/* report --children of a recording without callchains is perf report
 * --children's table there: one percentage a row (perf cancels --children
 * silently where no event has callchains), in perf's order. */
static void test_children_without_callchains_as_perf(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *diff = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	assert_non_null(dir);
	rc = tu_sh(&out, "%s record -a -e sched:sched_switch,timer:hrtimer_start --force -o %s -- "
			 "sh -c 'ls -lR /usr/include > /dev/null; sleep 0.2' 2>&1",
		   tu_ringtrace(), dir);
	if (rc != 0)
		fail_msg("ringtrace record failed (%d):\n%s", rc, out);
	free(out);
	/* ringtrace's Samples column, after the percentage, left out */
	rc = tu_sh(&diff, "cd %s && %s report . --children > table && "
			  "awk '!/^#/ && NF { $2 = \"\"; $0 = $0; $1 = $1; print }' table > a && "
			  "perf report -i . --stdio --children 2>/dev/null | "
			  "awk '!/^#/ && NF { $1 = $1; print }' > b && grep -q '^# Overhead ' table && "
			  "test -s a && diff a b",
		   dir, tu_ringtrace());
	if (rc != 0)
		fail_msg("report --children without callchains is not perf's table (<: ringtrace, "
			 ">: perf):\n%s", diff);
	free(diff);
	tu_rmtree(dir);
	free(dir);
}

/* Without a command, recording runs until SIGINT, then flushes and reports.
 * A spinning process on the last CPU gives that CPU samples to count (an idle
 * CPU of a VM may not tick: perf sees the same), and SIGINT comes a second
 * after that CPU's first samples reach its file, whatever the start takes
 * (the verifier's work on a sanitized build takes one to a few seconds). */
static void test_sigint_stops_and_flushes(void **state)
{
	char *dir, *out = NULL;
	uint64_t first, last, n;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_non_null(dir);
	rc = tu_sh(&out,
		   "%s --cpu %d spin 60 & L=$!; %s record -a -F %d -o %s --force 2>&1 & R=$!; "
		   "for i in $(seq 300); do [ -s %s/data.cpu%d ] && break; sleep 0.1; done; "
		   "sleep 1; kill -INT $R; wait $R; s=$?; kill $L; wait $L 2>/dev/null; exit $s",
		   tu_loadgen(), busy_cpu(), tu_ringtrace(), FREQ, dir, dir, busy_cpu());
	if (rc != 0)
		fail_msg("record did not end with status 0 on SIGINT (%d):\n%s", rc, out);
	if (!strstr(out, "samples") || !strstr(out, "lost"))
		fail_msg("no end-of-recording totals:\n%s", out);
	free(out);
	out = NULL;
	n = count_samples(dir, busy_cpu(), &first, &last);
	print_message("CPU %d: %llu samples in the second before SIGINT and after\n", busy_cpu(),
		      (unsigned long long)n);
	if (n <= FREQ / 2)
		fail_msg("%llu samples on the busy CPU over at least a second at %d Hz",
			 (unsigned long long)n, FREQ);
	assert_int_equal(tu_sh(&out, "%s report %s", tu_ringtrace(), dir), 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* Whether pid blocks SIGINT (its SigBlk): record has begun to answer it. */
static bool blocks_sigint(pid_t pid)
{
	return tu_signal_in(pid, "SigBlk", SIGINT);
}

/*
 * SIGINT is answered within a second at every instant of the start, from the
 * moment record blocks it (the /proc walk, the BPF programs verified, the
 * tables): 20 recordings of record -a -g, the i-th sent SIGINT i/10 s (and a
 * random part of a tenth) after that, beside CPU hogs that stretch the start
 * to a second or more (and more of them, a tenth later each, until one is
 * sent after the start, where the start takes longer than 2 s). Each ends with status 0 within a second: "nothing
 * recorded" (and no directory left) when stopped before its sampler ran,
 * else totals whose samples are the files'.
 */
static void test_sigint_answered_at_every_instant_of_the_start(void **state)
{
	enum { RUNS = 20, MAX_RUNS = 100, HOGS_PER_CPU = 2 };
	char *dir = tu_tempdir(), rec[PATH_MAX + 8], log[PATH_MAX + 8], *out = NULL;
	int nr_hogs = HOGS_PER_CPU * tu_online_cpus(), in_start = 0, recorded = 0;
	unsigned int seed = (unsigned int)time(NULL);

	(void)state;
	tu_skip_unless_possible();
	if (nr_hogs > 64)
		nr_hogs = 64;
	print_message("seed %u, %d CPU hogs\n", seed, nr_hogs);
	/* (stopped by the test's teardown, tu_stop_left, whatever its outcome) */
	for (int i = 0; i < nr_hogs; i++)
		tu_start("exec sh -c 'while :; do :; done'");
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(log, sizeof(log), "%s/log", dir);
	/* past RUNS while every one was stopped in the start (a start longer
	 * than 2 s, on a busy machine): on, a tenth of a second later each,
	 * until one records, within MAX_RUNS */
	for (int i = 0; i < RUNS || (!recorded && i < MAX_RUNS); i++) {
		double at = i / 10.0 + (double)rand_r(&seed) / RAND_MAX / 10.0, t0, gone;
		const char *line;
		unsigned long said = 0, lost = 0;
		uint64_t first, last, n;
		struct stat st;
		int status = 0;
		pid_t r;

		tu_rmtree(rec);
		r = tu_start("exec %s record -a -g --unwind-cache none -o %s >%s 2>&1",
			     tu_ringtrace(), rec, log);
		t0 = monotonic_seconds();
		while (!blocks_sigint(r) && monotonic_seconds() < t0 + 10)
			usleep(1000);
		usleep((useconds_t)(at * 1e6));
		t0 = monotonic_seconds();
		kill(r, SIGINT);
		while (waitpid(r, &status, WNOHANG) == 0 && monotonic_seconds() < t0 + 20)
			usleep(1000);
		gone = monotonic_seconds() - t0;
		if (!tu_wait_gone(r, 0)) {
			kill(r, SIGKILL);
			waitpid(r, &status, 0);
		}
		free(out);
		assert_int_equal(tu_sh(&out, "cat %s", log), 0);
		line = strstr(out, "ringtrace: recorded ");
		if (!line)
			line = strstr(out, "ringtrace: stopped");
		print_message("SIGINT %.3f s in: gone %.3f s later: %.*s\n", at, gone,
			      line ? (int)strcspn(line, "\n") : 0, line ? line : "");
		if (gone > 1.0 || !WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("SIGINT %.3f s into record -a -g: status %#x %.3f s later:\n%s", at,
				 status, gone, out);
		if (strstr(out, "ringtrace: stopped while starting: nothing recorded")) {
			assert_int_not_equal(stat(rec, &st), 0);
			in_start++;
			continue;
		}
		line = strstr(out, "ringtrace: recorded ");
		if (!line || !(line = strstr(line, " into ")) || !(line = strstr(line, ": ")) ||
		    sscanf(line, ": %lu samples, %lu lost", &said, &lost) != 2)
			fail_msg("no totals:\n%s", out);
		n = count_samples(rec, -1, &first, &last);
		if (n != said)
			fail_msg("the totals say %lu samples, the files hold %llu:\n%s", said,
				 (unsigned long long)n, out);
		recorded++;
	}
	tu_stop_left(NULL);
	print_message("%d stopped while starting, %d recorded\n", in_start, recorded);
	/* the sweep crossed the start */
	assert_true(in_start > 0 && recorded > 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* The workload's exit status is ringtrace's; a command that cannot run is
 * one error line and a non-zero exit. */
static void test_workload_exit_status(void **state)
{
	char *dir, *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record -a --force -o %s -- sh -c 'exit 3' 2>&1", tu_ringtrace(), dir);
	assert_int_equal(rc, 3);
	free(out);
	rc = tu_sh(&out, "%s record -a --force -o %s -- /nonexistent/cmd 2>&1 >/dev/null",
		   tu_ringtrace(), dir);
	assert_int_not_equal(rc, 0);
	if (!strstr(out, "cannot run /nonexistent/cmd: No such file or directory") ||
	    strchr(out, '\n') != out + strlen(out) - 1)
		fail_msg("wanted one error line naming the command, got:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* The durations: the report header's ("# N samples, L lost, X s") is the
 * time from the first sample to the last, which perf script's first and
 * last sample times give too, on every transport; the record footer's
 * ("recorded X s") is the time the recording ran, at least that. The
 * workload spins on one CPU for 0.5 s: an idle CPU of this VM (halted)
 * gives cpu-clock samples in bursts, and "-a -- sleep 0.5" spanned 0.26 s
 * now and then (1 run in 10, every build). */
static void test_record_and_report_durations_agree(void **state)
{
	static const char *const transports[] = { "ringbuf", "perfbuf", "ring" };

	(void)state;
	tu_skip_unless_possible();
	for (int i = 0; i < 3; i++) {
		char *dir = tu_tempdir(), *out = NULL, *rep = NULL, *perf = NULL, *p;
		double recorded = -1, reported = -1, first = 0, last = 0;

		assert_int_equal(tu_sh(&out, "%s record --force -o %s --transport %s -a -- %s --cpu %d spin 0.5 2>&1",
				       tu_ringtrace(), dir, transports[i], tu_loadgen(), busy_cpu()),
				 0);
		assert_int_equal(tu_sh(&rep, "%s report %s | head -3", tu_ringtrace(), dir), 0);
		assert_int_equal(tu_sh(&perf, "perf script -i %s -F time 2>/dev/null | tr -d ' :' | "
					      "sort -n | sed -n '1p;$p' | tr '\\n' ' '",
				       dir),
				 0);
		p = strstr(out, "ringtrace: recorded ");
		if (p)
			recorded = strtod(p + strlen("ringtrace: recorded "), NULL);
		p = strstr(rep, " lost, ");
		if (p)
			reported = strtod(p + strlen(" lost, "), NULL);
		assert_int_equal(sscanf(perf, "%lf %lf", &first, &last), 2);
		print_message("%s: record says %.3f s, report %.3f s, perf script's samples span %.6f s\n",
			      transports[i], recorded, reported, last - first);
		if (recorded < 0.5 || recorded < reported)
			fail_msg("a 0.5 s spin whose samples span %.3f s recorded as %.3f s:\n%s",
				 reported, recorded, out);
		if (reported <= 0.3)
			fail_msg("a 0.5 s spin's samples span %.3f s:\n%s", reported, rep);
		assert_true(fabs(reported - (last - first)) < 0.0015);
		free(out);
		free(rep);
		free(perf);
		tu_rmtree(dir);
		free(dir);
	}
}

/* A recording of a process that never ran says how long it recorded (the
 * command's second at least), not 0.000 s for want of samples. */
static void test_empty_recording_says_its_duration(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, *p;
	double recorded = -1;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	rc = tu_sh(&out, "sleep 30 & pid=$!; sleep 0.5; %s record -p $pid --force -o %s/rec -- sleep 1 2>&1; "
			 "rc=$?; kill $pid; exit $rc",
		   tu_ringtrace(), dir);
	tu_print_text(out);
	assert_int_equal(rc, 0);
	p = strstr(out, "ringtrace: recorded ");
	if (p)
		recorded = strtod(p + strlen("ringtrace: recorded "), NULL);
	if (recorded < 1.0 || recorded > 29.0 || !strstr(out, ": 0 samples, "))
		fail_msg("record -p of a sleeping process -- sleep 1 did not say it recorded "
			 "1 s or more, and 0 samples:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hot_function_tops_its_process),
		cmocka_unit_test(test_busy_cpu_sample_count_matches_frequency),
		cmocka_unit_test(test_top_symbols_agree_with_perf),
		cmocka_unit_test(test_percent_limit_as_perf),
		cmocka_unit_test(test_report_rows_as_perf),
		cmocka_unit_test(test_report_header_as_perf),
		cmocka_unit_test(test_children_rows_as_perf),
		cmocka_unit_test(test_copies_of_a_program_one_row_as_perf),
		cmocka_unit_test(test_children_without_callchains_as_perf),
		cmocka_unit_test(test_long_names_whole_as_perf),
		cmocka_unit_test(test_children_rows_of_dwarf_as_perf),
		cmocka_unit_test(test_inlined_row_per_caller_as_perf),
		cmocka_unit_test(test_inlined_rows_of_clang_file_as_perf),
		cmocka_unit_test(test_summary_is_short),
		cmocka_unit_test(test_quiet_with_bpf_stats),
		cmocka_unit_test(test_sigint_stops_and_flushes),
		cmocka_unit_test_teardown(test_sigint_answered_at_every_instant_of_the_start,
					  tu_stop_left),
		cmocka_unit_test(test_workload_exit_status),
		cmocka_unit_test(test_record_and_report_durations_agree),
		cmocka_unit_test(test_empty_recording_says_its_duration),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
