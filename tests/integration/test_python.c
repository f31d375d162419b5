/* SPDX-License-Identifier: GPL-2.0-only */
/* test_python.c: Python functions in -g stacks: CPython 3.9-3.13 processes started before
 * the recording, their frames in report --folded and in perf script; other versions native. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "python_maps.h"
#include "test_util.h"

#define DEBIAN_PYTHON "/usr/bin/python3.11"
#define PYENV_PYTHON "/root/.pyenv/versions/3.11.7/bin/python3.11"
#define PYENV_PYTHON_38 "/root/.pyenv/versions/3.8.18/bin/python3.8"
#define PYENV_PYTHON_39 "/root/.pyenv/versions/3.9.18/bin/python3.9"
#define PYENV_PYTHON_310 "/root/.pyenv/versions/3.10.13/bin/python3.10"
#define PYENV_PYTHON_312 "/root/.pyenv/versions/3.12.1/bin/python3.12"
#define PYENV_PYTHON_313 "/root/.pyenv/versions/3.13.0/bin/python3.13"

/* outer -> middle -> inner, spinning in pure Python. */
static const char spin_py[] = "def inner():\n"
			      "    x = 0\n"
			      "    while True:\n"
			      "        x += 1\n"
			      "def middle():\n"
			      "    inner()\n"
			      "def outer():\n"
			      "    middle()\n"
			      "outer()\n";

/* A C extension called from work(), and two threads each in its own function. */
static const char threads_py[] = "import threading, zlib, os\n"
				 "data = os.urandom(1 << 16)\n"
				 "def work():\n"
				 "    while True:\n"
				 "        zlib.compress(data, 9)\n"
				 "def spin_a():\n"
				 "    x = 0\n"
				 "    while True:\n"
				 "        x += 1\n"
				 "def spin_b():\n"
				 "    y = 0\n"
				 "    while True:\n"
				 "        y += 2\n"
				 "threading.Thread(target=spin_a, daemon=True).start()\n"
				 "threading.Thread(target=spin_b, daemon=True).start()\n"
				 "work()\n";

/* A generator resumed by a for loop (a C call between two evaluations), and
 * a recursion deeper than the frames one evaluation may write (64). */
static const char generator_py[] = "def gen():\n"
				   "    while True:\n"
				   "        x = 0\n"
				   "        for i in range(1000):\n"
				   "            x += i\n"
				   "        yield x\n"
				   "def consume():\n"
				   "    for v in gen():\n"
				   "        pass\n"
				   "consume()\n";
static const char recursion_py[] = "import sys\n"
				   "sys.setrecursionlimit(5000)\n"
				   "def rec(n):\n"
				   "    if n == 0:\n"
				   "        x = 0\n"
				   "        while True:\n"
				   "            x += 1\n"
				   "    rec(n - 1)\n"
				   "rec(200)\n";

/* Whether the folded stack line holds each of frames, one after the other
 * (callers first), each a frame that starts with it. */
/* Of perf script's samples (blocks of a header and a frame a line, leaf
 * first), those holding frames (callee first) on consecutive lines (gaps:
 * native frames may come between them, as 3.10's calls between evaluations). */
static void script_share(const char *out, const char *const *frames, size_t nr, bool gaps,
			 unsigned long *total, unsigned long *matching)
{
	bool in_sample = false;
	size_t at = 0;

	*total = *matching = 0;
	/* a line at a time, by strchr: a strstr from each sample to the end
	 * of the text would read all of it again (ASan's strstr measures
	 * the whole haystack first: 24 s of a test for 12000 samples) */
	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char want[128];

		if (!len) { /* the blank line after a sample */
			*matching += in_sample && at == nr;
			in_sample = false;
		} else if (!in_sample) { /* its header */
			in_sample = true;
			at = 0;
			(*total)++;
		} else if (at < nr) {
			snprintf(want, sizeof(want), " %s (", frames[at]);
			if (memmem(line, len, want, strlen(want)))
				at++;
			else if (!gaps || memmem(line, len, ".map)", 5))
				at = 0; /* gaps: native frames between, not Python ones */
		}
		line = end ? end + 1 : NULL;
	}
	*matching += in_sample && at == nr;
}

/* Records python running script (written as dir/spin.py, started before)
 * with -g and scope ("-p" or "-t", given its pid) for seconds from when the
 * recording has started (the start, on this shared 2-CPU machine, can take
 * several), in dir/rec; returns its pid (killed). Another python process
 * started before is not the scope's: the walk is told of the one process
 * alone. */
static pid_t record_script_in(const char *python, const char *script, const char *dir,
			      int seconds, const char *scope, char **log)
{
	pid_t py, other;
	int rc;

	tu_write_file(dir, "spin.py", script, strlen(script));
	other = tu_start("exec %s -c 'import time; time.sleep(60)'", python);
	py = tu_start("exec %s %s/spin.py", python, dir);
	usleep(500000);
	assert_true(tu_running(py));
	assert_true(tu_running(other));
	/* seconds from when it has started, however long that takes */
	rc = tu_sh(log, "timeout -s INT %d %s record -v -g -F 999 %s %d -o %s/rec -- sleep %d 2>&1",
		   seconds + 120, tu_ringtrace(), scope, (int)py, dir, seconds);
	kill(py, SIGKILL);
	kill(other, SIGKILL);
	tu_wait_gone(py, 5);
	tu_wait_gone(other, 5);
	/* the range of Python frames is written for the target alone (for
	 * the other too, before 2026-11-28) */
	if (tu_sh(NULL, "perf script -i %s/rec --show-mmap-events 2>/dev/null | "
			"grep -q 'MMAP2 %d/%d: \\[0x%llx('", dir, (int)other, (int)other,
		  (unsigned long long)RT_PY_ADDR_BASE) == 0)
		fail_msg("the walk was told of python %d, which %s did not name:\n%s", (int)other,
			 scope, *log);
	/* kept beside the recording: a failed test leaves its directory */
	tu_write_file(dir, "record.log", *log, strlen(*log));
	if (rc != 124 && rc != 0)
		fail_msg("record failed (%d):\n%s", rc, *log);
	return py;
}

static pid_t record_script(const char *python, const char *script, const char *dir,
			   int seconds, char **log)
{
	return record_script_in(python, script, dir, seconds, "-p", log);
}

/* record's Python totals add up: every evaluation frame written as Python
 * frames or kept native for one reason. */
static void python_totals_add_up(const char *log)
{
	const char *line = strstr(log, "evaluation frames ");
	unsigned long all, replaced, frames, cut, no_thread, read_failed, no_frame, no_room, bad;

	if (!line || sscanf(line, "evaluation frames %lu: %lu written as %lu Python frames (%lu of "
			    "them cut short), kept native: %lu no thread state, %lu read failed, "
			    "%lu no Python frame, %lu no room, %lu bad code object",
			    &all, &replaced, &frames, &cut, &no_thread, &read_failed, &no_frame,
			    &no_room, &bad) != 9)
		fail_msg("no Python totals:\n%s", log);
	if (all != replaced + no_thread + read_failed + no_frame + no_room + bad || cut > replaced ||
	    frames < replaced)
		fail_msg("the Python totals do not add up:\n%s", log);
}

/* Of dir/rec's samples under comm in report --folded, >= 95% with outer,
 * middle, inner in that order (at least 200); what names the recording. */
static void expect_folded_frames(const char *dir, const char *comm, const char *what,
				 const char *log)
{
	static const char *const callers_first[] = { "outer (", "middle (", "inner (" };
	unsigned long total, full;
	char *folded = NULL;

	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, comm, callers_first, 3, &total, &full);
	print_message("%s: report --folded: %lu of %lu samples with outer;middle;inner\n", what,
		      full, total);
	if (total < 200 || full * 100 < total * 95)
		fail_msg("%lu of %lu samples; record's log:\n%s\nfolded:\n%.4000s", full, total, log,
			 folded);
	free(folded);
}

/* The spinning script's samples under python (comm): >= 95% with outer,
 * middle, inner in that order in report --folded, and in perf script of
 * the same recording (given the recording's map of the process as perf
 * reads a JIT's: /tmp/perf-PID.map). */
static void expect_python_frames(const char *python, const char *comm, bool gaps)
{
	static const char *const leaf_first[] = { "inner", "middle", "outer" };
	char *dir, *log = NULL, *script = NULL, *out = NULL;
	unsigned long total, full;
	pid_t py;

	if (access(python, X_OK))
		tu_skip("%s is not installed", python);
	dir = tu_tempdir();
	py = record_script(python, spin_py, dir, 12, &log);
	if (!strstr(log, " CPython processes unwound") ||
	    strstr(log, "python: 0 CPython processes unwound"))
		fail_msg("no CPython process unwound:\n%s", log);
	python_totals_add_up(log);
	expect_folded_frames(dir, comm, python, log);
	/* the names come from the recording: the map is in it */
	assert_int_equal(tu_sh(&out, "grep -c ' inner (%s/spin.py:1)$' %s/rec/perf-%d.map", dir, dir,
			       (int)py), 0);
	free(out);
	assert_int_equal(tu_sh(&script,
			       "cp %s/rec/perf-%d.map /tmp/perf-%d.map && "
			       "perf script -i %s/rec --comms %s 2>/dev/null; rm -f /tmp/perf-%d.map",
			       dir, (int)py, (int)py, dir, comm, (int)py),
			 0);
	script_share(script, leaf_first, 3, gaps, &total, &full);
	print_message("%s: perf script: %lu of %lu samples with inner, middle, outer\n", python,
		      full, total);
	if (total < 200 || full * 100 < total * 95)
		fail_msg("perf script: %lu of %lu samples:\n%.4000s", full, total, script);
	free(script);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

static void test_debian_python311_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(DEBIAN_PYTHON, "python3.11", false);
}

/* -t: the named thread's process alone is told to the walk (with -t, every
 * CPython process running was, and every process's tables were compiled,
 * before 2026-11-28), and its frames are named. */
static void test_thread_scope(void **state)
{
	char *dir, *log = NULL;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	record_script_in(DEBIAN_PYTHON, spin_py, dir, 6, "-t", &log);
	expect_folded_frames(dir, "python3.11", "-t", log);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* pyenv's build: the interpreter in libpython3.11.so, a PIE program. */
static void test_pyenv_python311_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(PYENV_PYTHON, "python3.11", false);
}

/* 3.12: a shim frame (owned by the C stack) per evaluation call, not is_entry. */
static void test_pyenv_python312_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(PYENV_PYTHON_312, "python3.12", false);
}

/* 3.13: no _PyCFrame, the thread state's current_frame. */
static void test_pyenv_python313_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(PYENV_PYTHON_313, "python3.13", false);
}

/* 3.10: a PyFrameObject per evaluation call, found by pthread_self(); each
 * Python call's native frames (_PyEval_Vector) between its Python frames. */
static void test_pyenv_python310_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(PYENV_PYTHON_310, "python3.10", true);
}

/* 3.9: 3.10's offsets; its calls between evaluations are function_code_fastcall. */
static void test_pyenv_python39_frames(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_python_frames(PYENV_PYTHON_39, "python3.9", true);
}

/* A version without offsets (3.8): counted, its native frames kept. */
static void test_other_version_native(void **state)
{
	char *dir, *log = NULL, *folded = NULL;
	unsigned long total, native, python;
	static const char *const eval[] = { "_PyEval_EvalFrameDefault" };
	static const char *const inner[] = { "inner (" };

	(void)state;
	tu_skip_unless_possible();
	if (access(PYENV_PYTHON_38, X_OK))
		tu_skip("%s is not installed", PYENV_PYTHON_38);
	dir = tu_tempdir();
	record_script(PYENV_PYTHON_38, spin_py, dir, 10, &log);
	if (!strstr(log, "of versions without offsets") ||
	    strstr(log, " 0 of versions without offsets"))
		fail_msg("3.8 not counted:\n%s", log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, "python3.8", eval, 1, &total, &native);
	tu_folded_in_order(folded, "python3.8", inner, 1, &total, &python);
	print_message("3.8: %lu of %lu samples through _PyEval_EvalFrameDefault, %lu named\n",
		      native, total, python);
	assert_true(total > 100);
	assert_true(native * 100 >= total * 80);
	assert_int_equal(python, 0);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* A 3.13 whose own _Py_DebugOffsets the walk cannot use (a copy of its
 * libpython whose frame owner offset lies past the bytes a walk reads of a
 * frame, loaded through LD_LIBRARY_PATH): counted, not walked, its native
 * frames kept. The same interpreter unpatched is walked (test above). */
static void test_own_debug_offsets_honoured(void **state)
{
	static const char *const eval[] = { "_PyEval_EvalFrameDefault" };
	static const char *const inner[] = { "inner (" };
	const char *lib = "/root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0";
	char *dir, *log = NULL, *folded = NULL, *out = NULL, python[PATH_MAX + 64];
	unsigned long total, native, named;

	(void)state;
	tu_skip_unless_possible();
	if (access(PYENV_PYTHON_313, X_OK) || access(lib, R_OK))
		tu_skip("%s is not installed", PYENV_PYTHON_313);
	dir = tu_tempdir();
	/* _Py_DebugOffsets.interpreter_frame.owner, at 264 in 3.13's, to 200 */
	if (tu_sh(&out, "cp %s %s/ && python3 - %s/libpython3.13.so.1.0 <<'EOF'\n"
			"import struct, subprocess, sys\n"
			"secs = subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout\n"
			"f = [l.split() for l in secs.splitlines() if '.PyRuntime' in l][0]\n"
			"i = f.index('.PyRuntime')\n"
			"addr, off = int(f[i + 2], 16), int(f[i + 3], 16)\n"
			"syms = subprocess.run(['readelf', '-sW', '--dyn-syms', sys.argv[1]], capture_output=True, text=True).stdout\n"
			"v = [int(l.split()[1], 16) for l in syms.splitlines() if l.split()[-1:] == ['_PyRuntime']][0]\n"
			"with open(sys.argv[1], 'r+b') as fh:\n"
			"    fh.seek(v - addr + off)\n"
			"    assert fh.read(8) == b'xdebugpy'\n"
			"    fh.seek(v - addr + off + 264)\n"
			"    fh.write(struct.pack('<Q', 200))\n"
			"EOF",
		  lib, dir, dir))
		fail_msg("cannot patch a copy of %s: %s", lib, out ? out : "");
	free(out);
	snprintf(python, sizeof(python), "env LD_LIBRARY_PATH=%s %s", dir, PYENV_PYTHON_313);
	record_script(python, spin_py, dir, 8, &log);
	if (!strstr(log, " 1 with _Py_DebugOffsets the walk cannot use"))
		fail_msg("the patched interpreter not counted:\n%s", log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, "python3.13", eval, 1, &total, &native);
	tu_folded_in_order(folded, "python3.13", inner, 1, &total, &named);
	print_message("3.13 with unusable own offsets: %lu of %lu samples through "
		      "_PyEval_EvalFrameDefault, %lu named\n", native, total, named);
	assert_true(total > 100);
	assert_true(native * 100 >= total * 80);
	assert_int_equal(named, 0);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* Of the folded stacks of comm, the samples holding frame a and those
 * holding both a and b. */
static void folded_pair(const char *folded, const char *comm, const char *a, const char *b,
			unsigned long *with_a, unsigned long *with_both)
{
	const char *fa[] = { a }, *fab[] = { a, b };
	unsigned long total;

	tu_folded_in_order(folded, comm, fa, 1, &total, with_a);
	tu_folded_in_order(folded, comm, fab, 2, &total, with_both);
}

/* Native frames of a C extension below the Python function that called it
 * (zlib's under work()); two threads, each its own Python function under
 * threading's, never the other's. */
static void expect_extension_and_threads(const char *python, const char *run_name)
{
	char *dir, *log = NULL, *folded = NULL;
	unsigned long work, work_zlib, zlib, zlib_work, a, a_run, b, b_run, a_b, b_a, run;
	const char *comm = strrchr(python, '/') + 1;

	if (access(python, X_OK))
		tu_skip("%s is not installed", python);
	dir = tu_tempdir();
	record_script(python, threads_py, dir, 10, &log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	folded_pair(folded, comm, "work (", "zlib_compress", &work, &work_zlib);
	folded_pair(folded, comm, "zlib_compress", "zlib_compress", &zlib, &zlib_work);
	folded_pair(folded, comm, "spin_a (", "spin_b (", &a, &a_b);
	folded_pair(folded, comm, "spin_b (", "spin_a (", &b, &b_a);
	folded_pair(folded, comm, run_name, "spin_a (", &run, &a_run);
	folded_pair(folded, comm, run_name, "spin_b (", &run, &b_run);
	print_message("%s: work: %lu samples, %lu with zlib_compress below; zlib_compress: %lu "
		      "samples; spin_a %lu (%lu under %s), spin_b %lu (%lu)\n",
		      python, work, work_zlib, zlib, a, a_run, run_name, b, b_run);
	if (work < 100)
		fail_msg("work: %lu samples; record's log:\n%s\nfolded:\n%.3000s", work, log, folded);
	/* zlib's frames under work's (work's own code, the bytes it makes: not) */
	assert_true(zlib >= 100 && work_zlib * 100 >= zlib * 95);
	assert_true(a >= 100 && a_run * 100 >= a * 95);
	assert_true(b >= 100 && b_run * 100 >= b * 95);
	assert_int_equal(a_b + b_a, 0);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

static void test_extension_and_threads(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_extension_and_threads(DEBIAN_PYTHON, "Thread.run (");
}

/* The same on 3.9 and 3.10 (threads found by pthread_self(); co_name: run),
 * 3.12, 3.13. */
static void test_extension_and_threads_39(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_extension_and_threads(PYENV_PYTHON_39, "run (");
}

static void test_extension_and_threads_310(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_extension_and_threads(PYENV_PYTHON_310, "run (");
}

static void test_extension_and_threads_312(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_extension_and_threads(PYENV_PYTHON_312, "Thread.run (");
}

static void test_extension_and_threads_313(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	expect_extension_and_threads(PYENV_PYTHON_313, "Thread.run (");
}

/* The generator's frames under its consumer's; the recursion cut at 64
 * frames, counted, never looping. */
static void test_generator_and_recursion(void **state)
{
	static const char *const gen_under_consume[] = { "consume (", "gen_iternext", "gen (" };
	static const char *const rec64[64] = {
		[0 ... 63] = "rec (",
	};
	static const char *const rec65[65] = {
		[0 ... 64] = "rec (",
	};
	/* the callers left out, marked */
	static const char *const cut_rec64[64] = {
		[0] = "[truncated];rec (",
		[1 ... 63] = "rec (",
	};
	char *dir, *log = NULL, *folded = NULL;
	unsigned long total, full, over, marked;

	(void)state;
	tu_skip_unless_possible();
	if (access(DEBIAN_PYTHON, X_OK))
		tu_skip("%s is not installed", DEBIAN_PYTHON);
	dir = tu_tempdir();
	record_script(DEBIAN_PYTHON, generator_py, dir, 8, &log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, "python3.11", gen_under_consume, 3, &total, &full);
	print_message("generator: %lu of %lu samples with consume;gen_iternext;gen\n", full, total);
	assert_true(total >= 200 && full * 100 >= total * 95);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);

	dir = tu_tempdir();
	record_script(DEBIAN_PYTHON, recursion_py, dir, 8, &log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, "python3.11", rec64, 64, &total, &full);
	tu_folded_in_order(folded, "python3.11", rec65, 65, &total, &over);
	tu_folded_in_order(folded, "python3.11", cut_rec64, 64, &total, &marked);
	print_message("recursion of 200: %lu of %lu samples with 64 rec frames, %lu with more, "
		      "%lu under [truncated]\n", full, total, over, marked);
	assert_true(total >= 200 && full * 100 >= total * 95);
	assert_int_equal(over, 0);
	if (marked * 100 < total * 95)
		fail_msg("%lu of %lu samples mark the callers cut:\n%.3000s", marked, total, folded);
	if (!strstr(log, " of them cut short)") || strstr(log, " (0 of them cut short)"))
		fail_msg("the cut recursion not counted:\n%s", log);
	python_totals_add_up(log);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* The time a go tool pprof -traces stack starts with ("141.41ms   inner (...)",
 * "1.2s   ..."), in milliseconds; false if line is not such a line. */
/* export -g's profile endpoint names Python frames as record does: the
 * spinning script's stacks in go tool pprof, >= 80% with outer, middle and
 * inner (the sampling child's snapshot carries the processes' maps). */
static void test_profile_endpoint_names(void **state)
{
	static const char *const leaf_first[] = { "   inner (", " middle (", " outer (" };
	double total = 0, named = 0;
	char *dir, *out;
	int code = 0;
	pid_t py;

	(void)state;
	tu_skip_unless_possible();
	if (access(DEBIAN_PYTHON, X_OK))
		tu_skip("%s is not installed", DEBIAN_PYTHON);
	if (system("command -v go >/dev/null"))
		tu_skip("go tool pprof is not installed (make test-deps installs golang-go)");
	dir = tu_tempdir();
	tu_write_file(dir, "spin.py", spin_py, strlen(spin_py));
	py = tu_start("exec %s %s/spin.py", DEBIAN_PYTHON, dir);
	out = tu_profile_endpoint_traces(dir, py, leaf_first, 3, &code, &total, &named);
	kill(py, SIGKILL);
	tu_wait_gone(py, 5);
	if (code != 200)
		fail_msg("the profile endpoint never answered 200 (last %d)", code);
	if (total < 500 || named < total * 0.8)
		fail_msg("%.0f ms of %.0f named outer;middle;inner:\n%.3000s", named, total,
			 out ? out : "");
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* go tool pprof -top of report --pprof names <module>, <lambda> and a
 * comprehension as written (it simplifies a name given as the system name
 * too, as it would a C++ one, leaving these blank and merged into one). */
static void test_pprof_names_as_written(void **state)
{
	static const char script[] = "import time\n"
				     "end = time.time() + 60\n"
				     "f = lambda n: sum([i * i for i in range(n)])\n"
				     "while time.time() < end:\n"
				     "    f(2000)\n";
	static const char *const names[] = { "<module> (", "<lambda> (", "<listcomp> (" };
	char *dir, *log = NULL, *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	if (access(DEBIAN_PYTHON, X_OK))
		tu_skip("%s is not installed", DEBIAN_PYTHON);
	if (tu_sh(&out, "command -v go"))
		tu_skip("go tool pprof is not installed (make deps installs golang-go)");
	free(out);
	dir = tu_tempdir();
	record_script(DEBIAN_PYTHON, script, dir, 6, &log);
	assert_int_equal(tu_sh(&out, "%s report %s/rec --pprof %s/p.pb.gz 2>&1", tu_ringtrace(), dir,
			       dir), 0);
	free(out);
	assert_int_equal(tu_sh(&out, "cd %s && HOME=%s go tool pprof -top %s/p.pb.gz 2>&1", dir, dir,
			       dir), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strstr(out, names[i]))
			fail_msg("go tool pprof -top shows no %s...:\n%s\nrecord's log:\n%s", names[i],
				 out, log);
	free(out);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* python3.12 -X perf: CPython's perf trampolines (executable memory of its
 * own, no file, no CFI, no frame pointer: "sub $8, %rsp; call *%rcx")
 * between the evaluation frames are crossed, and the Python frames keep
 * ringtrace's names beside the trampolines' own perf map: >= 95% of the
 * stacks reach _start with outer;middle;inner (before: all ended at the
 * first trampoline; and the map held the trampolines' names alone), the
 * walks ending as a bad frame at most 5%. launched: python started by the
 * recording (its trampolines' memory mapped meanwhile: an MMAP2 of
 * "//anon" got the vdso's table, and 99% of its stacks ended at the first
 * trampoline, before 2026-12-02), else running before it. */
static void check_perf_trampolines(bool launched)
{
	static const char *const start[] = { "_start" };
	static const char *const callers_first[] = { "outer (", "middle (", "inner (" };
	char *dir, *log = NULL, *folded = NULL, python[PATH_MAX];
	unsigned long total, full, named, bad, all;
	const char *line;
	int rc;

	tu_skip_unless_possible();
	if (access(PYENV_PYTHON_312, X_OK))
		tu_skip("%s is not installed", PYENV_PYTHON_312);
	snprintf(python, sizeof(python), "%s -X perf", PYENV_PYTHON_312);
	dir = tu_tempdir();
	if (launched) {
		tu_write_file(dir, "spin.py", spin_py, strlen(spin_py));
		/* (the workload's status: timeout's 124) */
		rc = tu_sh(&log, "%s record -v -g -F 999 -o %s/rec -- timeout 6 %s %s/spin.py 2>&1",
			   tu_ringtrace(), dir, python, dir);
		if (rc != 124)
			fail_msg("record failed (%d):\n%s", rc, log);
	} else {
		record_script(python, spin_py, dir, 6, &log);
	}
	if (!(line = tu_stack_endings(log, &bad, &all)))
		fail_msg("no stacks' totals:\n%s", log);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	tu_folded_in_order(folded, "python3.12", start, 1, &total, &full);
	tu_folded_in_order(folded, "python3.12", callers_first, 3, &total, &named);
	print_message("-X perf, %s: %lu of %lu samples reach _start, %lu have outer;middle;inner; "
		      "%.*s\n",
		      launched ? "launched" : "running", full, total, named,
		      (int)strcspn(line, "\n"), line);
	if (total < 200 || full * 100 < total * 95 || named * 100 < total * 95 || bad * 20 > all)
		fail_msg("%lu of %lu samples reach _start, %lu named, %lu of %lu stacks a bad "
			 "frame:\n%s\n%.3000s",
			 full, total, named, bad, all, log, folded);
	free(folded);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

static void test_perf_trampolines_crossed(void **state)
{
	(void)state;
	check_perf_trampolines(false);
}

static void test_perf_trampolines_launched(void **state)
{
	(void)state;
	check_perf_trampolines(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extension_and_threads),
		cmocka_unit_test(test_extension_and_threads_39),
		cmocka_unit_test(test_extension_and_threads_310),
		cmocka_unit_test(test_extension_and_threads_312),
		cmocka_unit_test(test_extension_and_threads_313),
		cmocka_unit_test(test_debian_python311_frames),
		cmocka_unit_test(test_thread_scope),
		cmocka_unit_test(test_pyenv_python311_frames),
		cmocka_unit_test(test_pyenv_python312_frames),
		cmocka_unit_test(test_pyenv_python313_frames),
		cmocka_unit_test(test_pyenv_python310_frames),
		cmocka_unit_test(test_pyenv_python39_frames),
		cmocka_unit_test(test_other_version_native),
		cmocka_unit_test(test_own_debug_offsets_honoured),
		cmocka_unit_test(test_generator_and_recursion),
		cmocka_unit_test(test_profile_endpoint_names),
		cmocka_unit_test(test_pprof_names_as_written),
		cmocka_unit_test(test_perf_trampolines_crossed),
		cmocka_unit_test(test_perf_trampolines_launched),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
