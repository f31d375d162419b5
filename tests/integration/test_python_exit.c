/* SPDX-License-Identifier: GPL-2.0-only */
/* test_python_exit.c: CPython processes a recording starts, and what -g
 * keeps of one once it exits: its Python frames named (a root workload, whose
 * files the recording opens without capabilities; code objects of imports
 * freed and their memory taken by the script's functions); its map written
 * into DIR as it exits (not at the end) and the process let go; a flight
 * recording keeps the maps of the last exited processes only, for its
 * snapshots, within a byte budget, not a count of processes; a forked child walked as its
 * parent, its fork read before or after its parent's mappings or exec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define PYTHON "/usr/bin/python3"
/* As in test_python.c: its interpreter in libpython3.11.so. */
#define PYENV_PYTHON "/root/.pyenv/versions/3.11.7/bin/python3.11"
/* More than the 64 exited processes a flight recording kept until
 * 2026-12-02 (57 of 120 had named frames in a profile then). */
#define SHORT_RUNS 120

/* Lines 2-9 of a script after its imports: outer -> middle -> inner, which
 * spins for seconds (a string) of its process's CPU time: as many samples
 * on a busy machine as on a quiet one (spun by the clock, 418 of the 500
 * samples_in_inner asks for beside make test-busy's load). */
#define OUTER_MIDDLE_INNER(seconds)                                   \
	"def inner():\n"                                               \
	"    end = time.process_time() + " seconds "\n"                 \
	"    while time.process_time() < end:\n"                       \
	"        pass\n"                                               \
	"def middle():\n"                                              \
	"    inner()\n"                                                \
	"def outer():\n"                                               \
	"    middle()\n"

/* outer -> middle -> inner for a second, then the process ends. */
static const char second_py[] = "import time\n" OUTER_MIDDLE_INNER("1.0") "outer()\n";

/* A child forked (as a pre-fork server's worker, multiprocessing's) runs
 * outer -> middle -> inner for 1.5 s beside its parent; its pid in argv[1]. */
static const char fork_py[] = "import os, sys, time\n" OUTER_MIDDLE_INNER("1.5")
			      "pid = os.fork()\n"
			      "if pid == 0:\n"
			      "    outer()\n"
			      "    os._exit(0)\n"
			      "open(sys.argv[1], 'w').write(str(pid))\n"
			      "os.waitpid(pid, 0)\n";

/* The same, the fork made on CPU 0 once the interpreter started on another
 * (taskset -c 1): its FORK goes into CPU 0's side-band ring, its MMAP2s
 * into CPU 1's, and CPU 0's ring is read first. The child sleeps through
 * the pass that reads them (what it runs before is not walked as Python). */
static const char fork_moved_py[] = "import os, sys, time\n" OUTER_MIDDLE_INNER("1.5")
				    "os.sched_setaffinity(0, {0})\n"
				    "pid = os.fork()\n"
				    "if pid == 0:\n"
				    "    time.sleep(0.6)\n"
				    "    outer()\n"
				    "    os._exit(0)\n"
				    "open(sys.argv[1], 'w').write(str(pid))\n"
				    "os.waitpid(pid, 0)\n";

/* A Python process that execs another interpreter (argv[1], at other
 * addresses) once a pass over the side-band has made it a Python process
 * (0.6 s: three 200 ms pauses); the new program forks as fork_moved_py
 * does: the fork is read before the exec and the new interpreter's MMAP2s
 * (all on CPU 1). */
static const char exec_py[] = "import os, sys, time\n"
			      "time.sleep(0.6)\n"
			      "os.execv(sys.argv[1], sys.argv[1:])\n";

/* A Python process (on CPU 1) forks children that move to CPU 0 and exit
 * at once: each child's EXIT goes into CPU 0's side-band ring, its FORK
 * into CPU 1's, and CPU 0's ring is read first. It first outlives the first
 * pass over the side-band (200 ms after the start): a process whose MMAP2s
 * are read once it has exited is out of the scope, not known as a Python
 * process (50 forks took ~190 ms in one CI run, and the totals had no
 * line of Python processes to count its children in). */
#define EXITED_CHILDREN 50
static const char exit_first_py[] = "import os, time\n"
				    "time.sleep(0.5)\n"
				    "for i in range(50):\n" /* EXITED_CHILDREN */
				    "    pid = os.fork()\n"
				    "    if pid == 0:\n"
				    "        os.sched_setaffinity(0, {0})\n"
				    "        os._exit(0)\n"
				    "    os.waitpid(pid, 0)\n";

/* A few tens of milliseconds in work(). */
static const char short_py[] = "def work():\n"
			       "    return sum(range(3000000))\n"
			       "work()\n";

/* The number in log after "N <what>" (what follows the number), or -1. */
static long count_before(const char *log, const char *what)
{
	const char *at = strstr(log, what);

	if (!at)
		return -1;
	while (at > log && at[-1] == ' ')
		at--;
	while (at > log && at[-1] >= '0' && at[-1] <= '9')
		at--;
	return strtol(at, NULL, 10);
}

/* Of the samples report --folded FILTER gives of DIR/rec (in dir), how many
 * are in inner of DIR/script (line 2); at least 500 samples, 90% of them. */
static unsigned long samples_in_inner(const char *dir, const char *filter, const char *script)
{
	char *folded = NULL, inner[512];
	unsigned long with, all;

	assert_int_equal(tu_sh(&folded, "cd %s && %s report rec --folded %s", dir, tu_ringtrace(),
			       filter),
			 0);
	snprintf(inner, sizeof(inner), "inner (%s/%s:2)", dir, script);
	tu_folded_count(folded, inner, &with, &all);
	print_message("%lu of %lu samples (%s) in %s\n", with, all, filter, inner);
	assert_true(all >= 500);
	assert_true(with * 100 >= all * 90);
	free(folded);
	return with;
}

static void test_map_written_as_process_exits(void **state)
{
	char *dir, *log = NULL, *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	tu_write_file(dir, "second.py", second_py, strlen(second_py));
	/* the workload looks into DIR after python3 ends (5 s at most for
	 * the drain to see its exit and the copying thread to write) */
	rc = tu_sh(&log, "%s record -v -g -F 999 -o %s/rec -- sh -c '"
			 PYTHON " %s/second.py & echo $! > %s/pid; wait $!; "
			 "for i in $(seq 50); do [ -e %s/rec/perf-$(cat %s/pid).map ] && break; sleep 0.1; done; "
			 "ls %s/rec > %s/during' 2>&1",
		   tu_ringtrace(), dir, dir, dir, dir, dir, dir, dir);
	tu_write_file(dir, "record.log", log, strlen(log));
	if (rc) {
		/* the whole log: fail_msg's is cut at 1 KiB */
		print_message("%s\n", log);
		fail_msg("record failed (%d), its log above", rc);
	}
	assert_int_equal(tu_sh(&out, "cd %s && grep -x \"perf-$(cat pid).map\" during && "
				     "grep -c ' inner (%s/second.py:2)$' rec/perf-$(cat pid).map",
			       dir, dir),
			 0);
	print_message("the map in DIR while the recording ran:\n%s", out);
	/* handed over once, not written again at the end */
	assert_int_equal(count_before(log, " perf maps written"), 1);
	/* its samples in inner under their own name (those of its start,
	 * before the script runs, have none) */
	samples_in_inner(dir, "--comm python3", "second.py");
	free(out);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* A CPython process's forked child is walked as its parent is, from the
 * fork (its interpreter at the same addresses): its samples carry its Python
 * frames, named from its own map, in report and in perf script (until
 * 2026-11-28 a child had native frames alone). */
static void test_forked_child_walked(void **state)
{
	char *dir, *log = NULL, *script = NULL;
	unsigned long with;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	tu_write_file(dir, "fork.py", fork_py, strlen(fork_py));
	rc = tu_sh(&log, "%s record -v -g -F 999 -o %s/rec -- " PYTHON " %s/fork.py %s/child 2>&1",
		   tu_ringtrace(), dir, dir, dir);
	tu_write_file(dir, "record.log", log, strlen(log));
	if (rc) {
		/* the whole log: fail_msg's is cut at 1 KiB */
		print_message("%s\n", log);
		fail_msg("record failed (%d), its log above", rc);
	}
	assert_int_equal(count_before(log, " forked by another,"), 1);
	with = samples_in_inner(dir, "--pid $(cat child)", "fork.py");
	/* perf names them from the child's own map (as it reads a JIT's) */
	assert_int_equal(tu_sh(&script, "cd %s && c=$(cat child) && "
					"cp rec/perf-$c.map /tmp/perf-$c.map && "
					"perf script -i rec --pid $c -F ip,sym 2>/dev/null | "
					"grep -c ' inner (%s/fork.py:2)$'; rm -f /tmp/perf-$c.map",
			       dir, dir),
			 0);
	print_message("perf script: %lu of them with inner\n", strtoul(script, NULL, 10));
	assert_true(strtoul(script, NULL, 10) * 100 >= with * 95);
	free(script);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* Records the command (a format and its arguments) started on CPU 1, with
 * a 200 ms pause before each pass over the side-band rings, into dir/rec;
 * returns its log, kept as dir/record.log. Skips on one CPU. */
static char *record_from_cpu1(const char *dir, const char *fmt, ...)
{
	char *command = NULL, *log = NULL;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&command, fmt, ap);
	va_end(ap);
	assert_true(rc > 0);
	rc = tu_sh(&log, "%s record -v -g -F 999 --debug-drain-delay-ms 200 -o %s/rec -- "
			 "taskset -c 1 %s 2>&1",
		   tu_ringtrace(), dir, command);
	tu_write_file(dir, "record.log", log, strlen(log));
	if (rc) {
		/* the whole log: fail_msg's is cut at 1 KiB */
		print_message("%s\n", log);
		fail_msg("record failed (%d), its log above", rc);
	}
	free(command);
	return log;
}

/* The one child fork.py forked (pid in dir/child) made a Python process,
 * >= 90% of its samples in inner. */
static void expect_child_walked(const char *dir, const char *log)
{
	assert_int_equal(count_before(log, " forked by another,"), 1);
	samples_in_inner(dir, "--pid $(cat child)", "fork.py");
}

static void skip_on_one_cpu(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		tu_skip("needs 2 CPUs: side-band records on different ones");
}

/* A child forked on another CPU than the one its parent's interpreter was
 * mapped on, both read in one pass over the side-band rings: the fork is
 * read before the parent is known as a Python process, and still makes the
 * child one (until 2026-11-28 its samples had native frames alone). */
static void test_child_forked_before_parent_read(void **state)
{
	char *dir, *log;

	(void)state;
	tu_skip_unless_possible();
	skip_on_one_cpu();
	dir = tu_tempdir();
	tu_write_file(dir, "fork.py", fork_moved_py, strlen(fork_moved_py));
	log = record_from_cpu1(dir, PYTHON " %s/fork.py %s/child", dir, dir);
	expect_child_walked(dir, log);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* The same, the fork's parent a Python process (Debian's python3) that had
 * exec'd the Python program that forked, in another interpreter (pyenv's,
 * its libpython at other addresses): the child is walked with its parent's
 * new interpreter, not the one before the exec (until 2026-11-28 it kept
 * the first's addresses, and had native frames alone). */
static void test_child_forked_before_parent_exec_read(void **state)
{
	char *dir, *log;

	(void)state;
	tu_skip_unless_possible();
	skip_on_one_cpu();
	if (access(PYENV_PYTHON, X_OK))
		tu_skip("%s is not installed", PYENV_PYTHON);
	dir = tu_tempdir();
	tu_write_file(dir, "fork.py", fork_moved_py, strlen(fork_moved_py));
	tu_write_file(dir, "exec.py", exec_py, strlen(exec_py));
	log = record_from_cpu1(dir, PYTHON " %s/exec.py " PYENV_PYTHON " %s/fork.py %s/child", dir,
			       dir, dir);
	expect_child_walked(dir, log);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* Children whose exits are read before their forks are not made Python
 * processes (until 2026-11-28 each was, and never let go: its entry and
 * its slot in the walk's map kept for the rest of the recording). A child
 * whose fork and exit fall into two passes is read in order, made one and
 * let go: a few at most. */
static void test_exit_read_before_fork(void **state)
{
	char *dir, *log;
	long forked;

	(void)state;
	tu_skip_unless_possible();
	skip_on_one_cpu();
	dir = tu_tempdir();
	tu_write_file(dir, "exit.py", exit_first_py, strlen(exit_first_py));
	log = record_from_cpu1(dir, PYTHON " %s/exit.py", dir);
	forked = count_before(log, " forked by another,");
	print_message("%ld of %d children made Python processes\n", forked, EXITED_CHILDREN);
	assert_true(forked >= 0 && forked <= EXITED_CHILDREN / 10);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* A CPython process that starts during a recording of a command, outside
 * it, is not told to the walk (until 2026-11-28 every one on the machine
 * was: counted, its range written, a slot of the walk's map taken). */
static void test_process_outside_scope_not_told(void **state)
{
	char *dir, *log = NULL;
	pid_t other;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* the recording's start takes well under the decoy's wait here */
	other = tu_start("sleep 1; exec " PYTHON " -c 'import time; time.sleep(2)'");
	rc = tu_sh(&log, "%s record -v -g -F 99 -o %s/rec -- " PYTHON
			 " -c 'import time; time.sleep(2.5)' 2>&1",
		   tu_ringtrace(), dir);
	tu_write_file(dir, "record.log", log, strlen(log));
	kill(other, SIGKILL);
	tu_wait_gone(other, 5);
	if (rc) {
		/* the whole log: fail_msg's is cut at 1 KiB */
		print_message("%s\n", log);
		fail_msg("record failed (%d), its log above", rc);
	}
	assert_int_equal(count_before(log, " CPython processes unwound"), 1);
	if (tu_sh(NULL, "perf script -i %s/rec --show-mmap-events 2>/dev/null | "
			"grep -q 'MMAP2 %d/%d: \\[0x100000000000000('", dir, (int)other,
		  (int)other) == 0)
		fail_msg("python %d, outside the recording, was told to the walk:\n%s",
			 (int)other, log);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

/* A flight recording keeps the names of exited processes by bytes: each of
 * SHORT_RUNS short processes run one after the other, the snapshot after
 * them all names the frames of at least 90% of them. */
static void test_flight_keeps_exited_by_bytes(void **state)
{
	char *dir, *log = NULL, *pids = NULL, *line;
	unsigned long named = 0;
	int rc, n = 0;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	tu_write_file(dir, "short.py", short_py, strlen(short_py));
	/* SHORT_RUNS processes one after the other, then a snapshot */
	rc = tu_sh(&log, "%s record --overwrite -v -g -F 999 --force -o %s/rec -- sh -c '"
			 "for i in $(seq %d); do " PYTHON " %s/short.py & echo $! >> %s/pids; wait $!; done; "
			 "%s snapshot --wait %s/rec' 2>&1",
		   tu_ringtrace(), dir, SHORT_RUNS, dir, dir, tu_ringtrace(), dir);
	tu_write_file(dir, "record.log", log, strlen(log));
	if (rc)
		fail_msg("record or snapshot failed (%d):\n%s", rc, log);
	assert_int_equal(tu_sh(&pids, "cat %s/pids", dir), 0);
	for (line = strtok(pids, "\n"); line && n < SHORT_RUNS; line = strtok(NULL, "\n")) {
		n++;
		/* its map in the snapshot names its work() */
		named += !tu_sh(NULL, "grep -q ' work (%s/short.py:1)$' %s/rec/snapshot-000/perf-%ld.map",
				dir, dir, strtol(line, NULL, 10));
	}
	assert_int_equal(n, SHORT_RUNS);
	print_message("snapshot: %lu of %d exited processes with work() named; %ld let go\n",
		      named, SHORT_RUNS, count_before(log, " exited processes' names let go"));
	assert_true(named * 100 >= SHORT_RUNS * 90);
	/* well within the budget: none let go */
	assert_int_equal(count_before(log, " exited processes' names let go"), 0);
	free(pids);
	free(log);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_written_as_process_exits),
		cmocka_unit_test(test_forked_child_walked),
		cmocka_unit_test(test_child_forked_before_parent_read),
		cmocka_unit_test(test_child_forked_before_parent_exec_read),
		cmocka_unit_test(test_exit_read_before_fork),
		cmocka_unit_test(test_process_outside_scope_not_told),
		cmocka_unit_test(test_flight_keeps_exited_by_bytes),
	};
	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
