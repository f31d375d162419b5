/* SPDX-License-Identifier: GPL-2.0-only */
/* test_rotation_complete.c: every output of --switch-output is a recording
 * complete on its own: a Python program's frames and a deleted binary's
 * symbols named in each, the copies they need in each, perf reading each;
 * and the outputs read as one by report and script. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

/* Debian's interpreter (not a pyenv shim: a shell script starting it) */
#define PYTHON "/usr/bin/python3.11"

/* Spins in inner() for 4.5 s of wall time. */
static const char spin_py[] = "import time\n"
			      "def inner():\n"
			      "    x = 0\n"
			      "    for i in range(20000):\n"
			      "        x += i\n"
			      "    return x\n"
			      "def outer():\n"
			      "    t = time.time()\n"
			      "    while time.time() - t < 4.5:\n"
			      "        inner()\n"
			      "outer()\n";

/* Of the samples of folded (report --folded: "a;b;c COUNT" lines) with
 * within among their frames (NULL: all of them), *all, and *with of them
 * with frame too. */
static void count_within(const char *folded, const char *within, const char *frame,
			 unsigned long *with, unsigned long *all)
{
	char *copy = strdup(folded), *line, *save = NULL;

	assert_non_null(copy);
	*with = *all = 0;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *count = strrchr(line, ' ');

		if (!count || (within && !strstr(line, within)))
			continue;
		*all += strtoul(count + 1, NULL, 10);
		if (strstr(line, frame))
			*with += strtoul(count + 1, NULL, 10);
	}
	free(copy);
}

/* Every output of dir/rec (dir/rec.TIMESTAMP): of comm's samples in each
 * (ringtrace report --folded) with within among their frames (NULL: all),
 * the share with frame too, at least 90% in each output of 100 such samples
 * or more (the last can be short, the first all a program's start);
 * each with the copies listed in need (a shell glob, or NULL); each read
 * by perf report. Returns the number of outputs of 100 samples or more;
 * *total is the samples of all of them. */
static size_t check_outputs(const char *dir, const char *comm, const char *within,
			    const char *frame, const char *need, unsigned long *total)
{
	char pattern[PATH_MAX];
	size_t full = 0;
	glob_t g;

	*total = 0;
	snprintf(pattern, sizeof(pattern), "%s/rec.*", dir);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *out = g.gl_pathv[i];
		char *folded = NULL, *perf = NULL;
		unsigned long with = 0, all = 0;

		assert_int_equal(tu_sh(&folded, "%s report %s --folded --comm %s", tu_ringtrace(),
				       out, comm),
				 0);
		count_within(folded, within, frame, &with, &all);
		print_message("%s: %lu samples of %s, %lu in %s\n", out, all, comm, with, frame);
		free(folded);
		*total += all;
		if (need && tu_sh(NULL, "ls %s/%s >/dev/null 2>&1", out, need))
			fail_msg("%s holds no %s", out, need);
		if (tu_sh(&perf, "perf report -i %s --stdio --sort comm 2>&1", out) ||
		    !strstr(perf, comm))
			fail_msg("perf report of %s:\n%.2000s", out, perf);
		free(perf);
		if (all < 100)
			continue;
		full++;
		if (with * 10 < all * 9)
			fail_msg("%s: %lu of %lu samples of %s in %s: want 90%%", out, with, all, comm,
				 frame);
	}
	globfree(&g);
	/* the directory the copies were made in, beside the outputs, gone */
	snprintf(pattern, sizeof(pattern), "%s/.rec.copies", dir);
	assert_int_equal(access(pattern, F_OK), -1);
	return full;
}

/* The check: record -g --switch-output=1s of a Python program:
 * every output names its Python frames (perf-PID.map in each): of the
 * samples where the interpreter runs the program (PyEval_EvalCode: its
 * start, a second on a busy machine, is not), those in inner(). */
static void test_every_output_names_python_frames(void **state)
{
	char *dir = tu_tempdir(), *out = NULL, path[PATH_MAX];
	unsigned long total;
	FILE *f;

	(void)state;
	tu_skip_unless_possible();
	if (access(PYTHON, X_OK))
		tu_skip(PYTHON " is not installed (make test-deps installs python3.11)");
	snprintf(path, sizeof(path), "%s/spin.py", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(spin_py, f);
	fclose(f);
	if (tu_sh(&out, "cd %s && %s record -g --switch-output=1s -o rec -- " PYTHON
			" spin.py 2>&1",
		  dir, tu_ringtrace()))
		fail_msg("record: %s", out);
	tu_print_text(out);
	free(out);
	assert_true(check_outputs(dir, "python3.11", "PyEval_EvalCode", "inner (", "perf-*.map",
				  &total) >= 2);
	tu_rmtree(dir);
	free(dir);
}

/* A binary deleted as soon as it runs, recorded with --switch-output=1s:
 * every output names its samples (a copy of it in each); report of the base
 * name and script of every output read them as one recording. */
static void test_every_output_names_a_deleted_binary(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;
	unsigned long total, with, all;

	(void)state;
	tu_skip_unless_possible();
	if (tu_sh(&out, "cd %s && cp %s rtrotx && %s record --switch-output=1s -o rec -- "
			"sh -c '{ ./rtrotx spin 4 >/dev/null 2>&1 & "
			"for i in $(seq 500); do [ \"$(cat /proc/$!/comm 2>/dev/null)\" = rtrotx ] "
			"&& break; sleep 0.01; done; rm rtrotx; wait; }' 2>&1",
		  dir, tu_loadgen(), tu_ringtrace()))
		fail_msg("record: %s", out);
	tu_print_text(out);
	free(out);
	assert_true(check_outputs(dir, "rtrotx", NULL, "loadgen_hot_loop", NULL, &total) >= 2);
	/* read as one: by the base name, or every output named */
	assert_int_equal(tu_sh(&out, "cd %s && %s report rec --folded --comm rtrotx", dir,
			       tu_ringtrace()),
			 0);
	count_within(out, NULL, "loadgen_hot_loop", &with, &all);
	free(out);
	assert_int_equal(tu_sh(&out, "cd %s && %s script rec.* | grep -c ' rtrotx '; "
				     "for o in rec.*; do %s script $o; done | grep -c ' rtrotx '",
			       dir, tu_ringtrace(), tu_ringtrace()),
			 0);
	print_message("report of the base name: %lu samples of rtrotx (%lu named), the outputs "
		      "%lu; script of them all, then of each: %s",
		      all, with, total, out);
	assert_int_equal(all, total);
	assert_true(with * 10 >= all * 9);
	assert_int_equal(strtoul(out, NULL, 10), total);
	assert_int_equal(strtoul(strchr(out, '\n') + 1, NULL, 10), total);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A rotating recording killed with SIGKILL leaves its store of copies
 * (.rec.copies) behind; the next recording to rec removes it (its lock is
 * free), and leaves none itself at its end. */
static void test_killed_runs_store_removed(void **state)
{
	char *dir = tu_tempdir(), *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	if (tu_sh(&out, "cd %s && { %s record --switch-output=1s -o rec -- sleep 60 >/dev/null 2>&1 & "
			"for i in $(seq 300); do [ -d .rec.copies ] && [ -e rec ] && break; sleep 0.1; done; "
			"sleep 0.5; kill -9 $!; wait; ls -a | grep -c copies; }",
		  dir, tu_ringtrace()) ||
	    atoi(out) != 1)
		fail_msg("the killed run left no store: %s", out);
	free(out);
	if (tu_sh(&out, "cd %s && %s record --switch-output=1s -o rec -- sleep 1.5 2>&1 && ls -a",
		  dir, tu_ringtrace()))
		fail_msg("record: %s", out);
	if (strstr(out, "copies"))
		fail_msg("a store was left beside the outputs:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_output_names_python_frames),
		cmocka_unit_test(test_every_output_names_a_deleted_binary),
		cmocka_unit_test(test_killed_runs_store_removed),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
