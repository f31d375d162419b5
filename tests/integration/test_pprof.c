/* SPDX-License-Identifier: GPL-2.0-only */
/* test_pprof.c: report --pprof of a real recording of the load generator, read
 * by go tool pprof: the hot function, its callers and the totals as --folded;
 * -tagfocus=pid=N and cpu=N selecting exactly those samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

#define HOT "loadgen_hot_loop"

struct fixture {
	char *dir;
	char *folded;
};

/* go tool pprof with a scratch HOME (it keeps its state there). */
static int pprof(char **out, const struct fixture *fx, const char *args)
{
	return tu_sh(out, "cd %s && HOME=%s go tool pprof %s 2>&1", fx->dir, fx->dir, args);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char *out = NULL;
	int rc;

	fx->dir = tu_tempdir();
	*state = fx;
	if (tu_integration_skip_reason())
		return 0;
	rc = tu_sh(&out, "%s record -g -F 999 -o %s/rec -- %s --cpu %d spin 2 2>&1", tu_ringtrace(),
		   fx->dir, tu_loadgen(), tu_online_cpus() - 1);
	if (rc)
		fail_msg("record failed (%d):\n%s", rc, out);
	free(out);
	rc = tu_sh(&fx->folded, "%s report %s/rec --folded", tu_ringtrace(), fx->dir);
	if (rc)
		fail_msg("report --folded failed (%d):\n%s", rc, fx->folded);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->folded);
	free(fx);
	return 0;
}

static void need_go(void)
{
	char *out = NULL;

	tu_skip_unless_possible();
	if (tu_sh(&out, "command -v go"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	free(out);
}

/* The heaviest folded line of comm loadgen ending in the hot function: its
 * frames (comm left out) root first, separated by ';', and its count. */
static char *hot_stack(const char *folded, uint64_t *count, uint64_t *total)
{
	const char *best = NULL;
	size_t best_len = 0;

	*count = *total = 0;
	for (const char *line = folded; *line;) {
		const char *end = strchr(line, '\n'), *space;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		uint64_t n;

		space = memrchr(line, ' ', len);
		assert_non_null(space);
		n = strtoull(space + 1, NULL, 10);
		*total += n;
		if (!strncmp(line, "loadgen;", 8) && space - line > (ptrdiff_t)strlen(HOT) &&
		    !strncmp(space - strlen(HOT), HOT, strlen(HOT)) && n > *count) {
			*count = n;
			best = line + 8;
			best_len = (size_t)(space - best);
		}
		line += len + (end ? 1 : 0);
	}
	assert_non_null(best);
	return strndup(best, best_len);
}

/* go tool pprof -top names the hot function first, and counts every sample
 * --folded counts. */
static void test_top_matches_folded(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL, *stack, want[64];
	uint64_t count, total;
	double flat;
	const char *row;

	need_go();
	assert_int_equal(tu_sh(&out, "%s report %s/rec --pprof %s/p.pb.gz", tu_ringtrace(), fx->dir,
			       fx->dir), 0);
	free(out);
	stack = hot_stack(fx->folded, &count, &total);
	if (pprof(&out, fx, "-top -nodecount=5 p.pb.gz"))
		fail_msg("go tool pprof -top failed:\n%s", out);
	/* the first row after the header is the hot function, at over 80% */
	row = strstr(out, "flat%");
	assert_non_null(row);
	row = strchr(row, '\n');
	if (!row)
		fail_msg("no row after the header:\n%s", out);
	row++;
	if (!strstr(row, HOT) || (strstr(row, "\n") && strstr(row, "\n") < strstr(row, HOT)) ||
	    !strchr(row, 's') || sscanf(strchr(row, 's') + 1, "%lf%%", &flat) != 1 || flat < 80.0)
		fail_msg("%s is not the top function over 80%%:\n%s", HOT, out);
	if (!strstr(out, "Type: cpu") || !strstr(out, "File: loadgen\nBuild ID: "))
		fail_msg("the profile's type is not cpu, or its main file not loadgen's:\n%s", out);
	free(out);
	/* the sample counts add up to --folded's */
	assert_int_equal(pprof(&out, fx, "-sample_index=samples -top -nodecount=1 p.pb.gz"), 0);
	snprintf(want, sizeof(want), "of %" PRIu64 " total", total);
	if (!strstr(out, want))
		fail_msg("pprof does not count the %" PRIu64 " samples of --folded:\n%s", total, out);
	free(out);
	free(stack);
}

/* go tool pprof -traces shows the hot stack, leaf first, with the callers of
 * --folded, labelled with comm, pid and tid; -tagfocus finds them by CPU. */
static void test_traces_match_folded(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL, *stack, *save = NULL, *frames[64], *trace = NULL;
	uint64_t count, total;
	int nr = 0;
	size_t len = 0;
	FILE *f;

	need_go();
	assert_int_equal(tu_sh(&out, "%s report %s/rec --comm loadgen --pprof %s/c.pb.gz",
			       tu_ringtrace(), fx->dir, fx->dir), 0);
	free(out);
	stack = hot_stack(fx->folded, &count, &total);
	for (char *t = strtok_r(stack, ";", &save); t && nr < 64; t = strtok_r(NULL, ";", &save))
		frames[nr++] = t;
	/* the trace as pprof prints it: leaf first, one frame a line */
	f = open_memstream(&trace, &len);
	fprintf(f, " %s\n", frames[nr - 1]);
	for (int i = nr - 2; i >= 0; i--)
		fprintf(f, "             %s\n", frames[i]);
	fclose(f);
	if (pprof(&out, fx, "-traces c.pb.gz"))
		fail_msg("go tool pprof -traces failed:\n%s", out);
	if (!strstr(out, trace))
		fail_msg("no trace\n%swhere --folded has %s in\n%s", trace, HOT, out);
	if (!strstr(out, "comm:  loadgen") || !strstr(out, "pid:  ") || !strstr(out, "tid:  "))
		fail_msg("labels missing:\n%s", out);
	/* --comm filtered the other processes out */
	if (strstr(out, "comm:  ringtrace") || strstr(out, "comm:  sh"))
		fail_msg("--comm loadgen let other comms in:\n%s", out);
	free(out);
	/* ids are strings too, which -tagfocus matches by regexp */
	if (pprof(&out, fx, "'-tagfocus=cpu=^0$' -traces c.pb.gz") || !strstr(out, "comm:  loadgen")) {
		free(out);
		if (pprof(&out, fx, "'-tagfocus=cpu=^1$' -traces c.pb.gz") ||
		    !strstr(out, "comm:  loadgen"))
			fail_msg("-tagfocus=cpu=^0$ and cpu=^1$ match no sample:\n%s", out);
	}
	free(out);
	free(trace);
	free(stack);
}

/* Sample counts by the string label key's value in go tool pprof -raw's
 * output: what the profile itself says, whatever -tagfocus kept. */
struct raw_counts {
	uint64_t total;
	uint64_t by_value[8]; /* of values[i] */
	uint64_t others;      /* samples of no value listed */
};

static void raw_count(const char *raw, const char *key, const long *values, int nr,
		      struct raw_counts *c)
{
	struct tu_raw_profile p;
	char want[32];

	memset(c, 0, sizeof(*c));
	assert_non_null(strstr(raw, "\nSamples:\n"));
	snprintf(want, sizeof(want), "%s:[", key);
	tu_raw_parse(raw, &p);
	for (size_t s = 0; s < p.nr; s++) {
		bool seen = false;
		long value = -1;
		int i = 0;

		/* the string label "pid:[123]", not the number "pid:[123 pid]" */
		for (const char *at = strstr(p.samples[s].labels, want); at;
		     at = strstr(at + 1, want)) {
			char *after;
			long parsed = strtol(at + strlen(want), &after, 10);

			if (*after == ']') {
				value = parsed;
				seen = true;
			}
		}
		while (i < nr && values[i] != value)
			i++;
		if (seen && i < nr)
			c->by_value[i] += p.samples[s].count;
		else
			c->others += p.samples[s].count;
		c->total += p.samples[s].count;
	}
	tu_raw_free(&p);
}

/* A spinning loadgen with the pid the kernel gives after last (it writes
 * /proc/sys/kernel/ns_last_pid): the next free one, usually last + 1. 0 if
 * the kernel refused. */
static pid_t spin_after(long last, int seconds)
{
	char text[32], secs[16];
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	pid_t pid;

	if (!f)
		return 0;
	snprintf(text, sizeof(text), "%ld", last);
	if (fputs(text, f) < 0 || fclose(f))
		return 0;
	pid = fork();
	if (pid == 0) {
		snprintf(secs, sizeof(secs), "%d", seconds);
		execl(tu_loadgen(), "loadgen", "spin", secs, (char *)NULL);
		_exit(127);
	}
	return pid < 0 ? 0 : pid;
}

static void stop(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Two processes whose pids are a prefix one of the other (A and A0..A9,
 * asked of the kernel through ns_last_pid), sampled with the machine: go
 * tool pprof -tagfocus=pid=A keeps exactly A's samples, as many as the
 * profile's own labels give A, where the regexp of a string label ("(A)")
 * keeps A's and the other's. cpu=0 and cpu=1 likewise, CPU 0's a number 0. */
static void test_tagfocus_exact(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL, args[256];
	pid_t a = 0, b = 0;
	long pids[2], cpus[2] = { 0, 1 };
	struct raw_counts all, kept;

	need_go();
	for (int tries = 0; tries < 20 && !b; tries++) {
		stop(a);
		a = spin_after(1999 + tries * 37, 4);
		if (!a)
			tu_skip("cannot write /proc/sys/kernel/ns_last_pid to choose pids: %m");
		if (a < 1000 || a > 3276)
			continue; /* the range taken: ten times it must fit pid_max 32768 */
		b = spin_after((long)a * 10 - 1, 4);
		if (b / 10 != a) {
			stop(b);
			b = 0;
		}
	}
	if (!b) {
		stop(a);
		fail_msg("could not get two pids A and A0..A9 in 20 tries");
	}
	pids[0] = a;
	pids[1] = b;
	print_message("pids %d and %d\n", (int)a, (int)b);
	if (tu_sh(&out, "%s record -a -F 499 -o %s/tf -- sleep 2 2>&1 && "
			"%s report %s/tf --pprof %s/tf.pb.gz 2>&1",
		  tu_ringtrace(), fx->dir, tu_ringtrace(), fx->dir, fx->dir)) {
		stop(a), stop(b);
		fail_msg("record or report failed:\n%s", out);
	}
	free(out);
	stop(a);
	stop(b);
	assert_int_equal(pprof(&out, fx, "-raw -sample_index=samples tf.pb.gz"), 0);
	raw_count(out, "pid", pids, 2, &all);
	free(out);
	print_message("samples: %" PRIu64 " in all, %" PRIu64 " of pid %ld, %" PRIu64 " of pid %ld\n",
		      all.total, all.by_value[0], pids[0], all.by_value[1], pids[1]);
	if (all.by_value[0] < 50 || all.by_value[1] < 50)
		fail_msg("the two spinning processes have %" PRIu64 " and %" PRIu64 " samples",
			 all.by_value[0], all.by_value[1]);
	for (int i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "-raw -sample_index=samples -tagfocus=pid=%ld tf.pb.gz", pids[i]);
		assert_int_equal(pprof(&out, fx, args), 0);
		raw_count(out, "pid", pids, 2, &kept);
		if (kept.total != all.by_value[i] || kept.by_value[i] != all.by_value[i])
			fail_msg("-tagfocus=pid=%ld kept %" PRIu64 " samples (%" PRIu64 " of it), the profile has %" PRIu64,
				 pids[i], kept.total, kept.by_value[i], all.by_value[i]);
		free(out);
	}
	/* a string label's regexp matches A inside A0..A9 too */
	snprintf(args, sizeof(args), "-raw -sample_index=samples '-tagfocus=pid=(%ld)' tf.pb.gz", pids[0]);
	assert_int_equal(pprof(&out, fx, args), 0);
	raw_count(out, "pid", pids, 2, &kept);
	assert_int_equal(kept.by_value[0], all.by_value[0]);
	assert_int_equal(kept.by_value[1], all.by_value[1]);
	free(out);
	/* every CPU's samples, CPU 0's too */
	assert_int_equal(pprof(&out, fx, "-raw -sample_index=samples tf.pb.gz"), 0);
	raw_count(out, "cpu", cpus, 2, &all);
	free(out);
	for (int i = 0; i < tu_online_cpus() && i < 2; i++) {
		snprintf(args, sizeof(args), "-raw -sample_index=samples -tagfocus=cpu=%d tf.pb.gz", i);
		assert_int_equal(pprof(&out, fx, args), 0);
		raw_count(out, "cpu", cpus, 2, &kept);
		if (!all.by_value[i] || kept.total != all.by_value[i] || kept.by_value[i] != all.by_value[i])
			fail_msg("-tagfocus=cpu=%d kept %" PRIu64 " samples, the profile has %" PRIu64, i,
				 kept.total, all.by_value[i]);
		free(out);
	}
}

/* "-" writes the gzipped profile to stdout. A file is created 0600 (a
 * profile holds the kernel's addresses) and written over as perf writes its
 * outputs, made 0600 again; never through a symlink, into a FIFO or a file
 * of another user's, each refused in one line. A flame graph (names only) is
 * created with the umask's mode. */
static void test_stdout_and_existing_file(void **state)
{
	struct fixture *fx = *state;
	char *out = NULL, path[4096];
	struct stat st;

	tu_skip_unless_possible();
	snprintf(path, sizeof(path), "%s/e.pb.gz", fx->dir);
	assert_int_equal(tu_sh(&out, "%s report %s/rec --pprof - | head -c 2 | od -An -tx1",
			       tu_ringtrace(), fx->dir), 0);
	if (!strstr(out, "1f 8b"))
		fail_msg("--pprof - is not gzip on stdout: %s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "%s report %s/rec --pprof %s/e.pb.gz", tu_ringtrace(), fx->dir,
			       fx->dir), 0);
	free(out);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* written over, and private again */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(tu_sh(&out, "%s report %s/rec --pprof %s/e.pb.gz 2>&1 && "
				     "gzip -t %s/e.pb.gz",
			       tu_ringtrace(), fx->dir, fx->dir, fx->dir), 0);
	free(out);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a symlink, a FIFO, a file of another user's: refused, unchanged */
	assert_int_equal(tu_sh(&out, "cd %s && ln -s e.pb.gz link.pb.gz && mkfifo fifo.pb.gz && "
				     "touch theirs.pb.gz && chown nobody theirs.pb.gz",
			       fx->dir), 0);
	free(out);
	for (const char *const *n = (const char *const[]){ "link.pb.gz", "fifo.pb.gz", "theirs.pb.gz", NULL };
	     *n; n++) {
		assert_int_equal(tu_sh(&out, "timeout 20 %s report %s/rec --pprof %s/%s 2>&1",
				       tu_ringtrace(), fx->dir, fx->dir, *n), 1);
		if (!strstr(out, "not a regular file of yours") || strchr(out, '\n') != strrchr(out, '\n'))
			fail_msg("%s: not one line naming the cause: %s", *n, out);
		free(out);
	}
	assert_int_equal(tu_sh(&out, "test -p %s/fifo.pb.gz && test ! -s %s/theirs.pb.gz", fx->dir,
			       fx->dir), 0);
	free(out);
	/* a flame graph: the umask's mode, written over too */
	snprintf(path, sizeof(path), "%s/g.svg", fx->dir);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tu_sh(&out, "umask 022 && %s report %s/rec --flamegraph %s", tu_ringtrace(),
				       fx->dir, path), 0);
		free(out);
	}
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top_matches_folded),
		cmocka_unit_test(test_traces_match_folded),
		cmocka_unit_test(test_tagfocus_exact),
		cmocka_unit_test(test_stdout_and_existing_file),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, setup, teardown);
}
