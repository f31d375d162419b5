/* SPDX-License-Identifier: GPL-2.0-only */
/* test_script.c: ringtrace script against perf script on the same real
 * recordings (callchains, tracepoints, page faults, losses): identical output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

/* Lines of a difference shown when outputs differ. */
#define DIFF_LINES 60

struct fixture {
	char *dir;  /* recordings and outputs */
	char *home; /* an empty HOME for perf */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char *out = NULL;

	fx->dir = tu_tempdir();
	if (asprintf(&fx->home, "%s/home", fx->dir) < 0)
		return -1;
	tu_sh(&out, "mkdir -p %s", fx->home);
	free(out);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	tu_rmtree(fx->dir);
	free(fx->dir);
	free(fx->home);
	free(fx);
	return 0;
}

/* Records into DIR/name with these record arguments; fails the test unless
 * the recording succeeds. Without -g's stack copies (--stack-copy-budget 0):
 * perf 6.1's libunwind unwinds a copy through a library only in the first
 * process it unwinds that library for (in its own --call-graph dwarf
 * recordings alike), and these tests ask for perf's bytes; test_unwind_bounds
 * compares the copies with perf. */
static void record(struct fixture *fx, const char *name, const char *args)
{
	char *out = NULL;
	int rc = tu_sh(&out, "%s record --stack-copy-budget 0 --force -o %s/%s %s 2>&1",
		       tu_ringtrace(), fx->dir, name, args);

	if (rc)
		fail_msg("ringtrace record %s failed (%d):\n%s", args, rc, out);
	free(out);
}

/*
 * Runs perf script and ringtrace script with the same options on DIR/name and
 * requires the same standard output, and at least min_lines of it. perf runs
 * with an empty HOME: its build-id cache (~/.debug) holds whatever perf
 * recorded on this machine before (other binaries' symbols under the same
 * build-id, a [vdso] of another boot), which ringtrace does not read; the
 * recording's own .build-id copies stand in for it. Returns ringtrace's output.
 */
static char *expect_same_as_perf(struct fixture *fx, const char *name, const char *opts,
				 int min_lines)
{
	char *out = NULL, *text = NULL;
	int rc, lines = 0;

	rc = tu_sh(&out, "HOME=%s perf script %s -i %s/%s > %s/%s.perf 2>/dev/null", fx->home, opts,
		   fx->dir, name, fx->dir, name);
	if (rc)
		fail_msg("perf script %s failed (%d): %s", opts, rc, out);
	free(out);
	rc = tu_sh(&out, "%s script %s %s/%s > %s/%s.rt", tu_ringtrace(), opts, fx->dir, name, fx->dir,
		   name);
	if (rc)
		fail_msg("ringtrace script %s failed (%d): %s", opts, rc, out);
	free(out);
	/* a frame in a process's perf map compared without its name: perf
	 * reads the map from /tmp alone, ringtrace the recording's copy first
	 * (a Python process's frames on a busy machine: [unknown] to perf,
	 * named by ringtrace; docs/stacks.md) */
	rc = tu_sh(&out, "cd %s && for f in %s.perf %s.rt; do sed -E "
			 "'s|^([[:space:]]+[0-9a-f]+) .* [(](/tmp/perf-[0-9]+[.]map)[)]$|\\1 \\2|' "
			 "$f > $f.n; done; diff %s.perf.n %s.rt.n | head -%d",
		   fx->dir, name, name, name, name, DIFF_LINES);
	if (rc || out[0])
		fail_msg("ringtrace script %s differs from perf script on %s (< perf, > ringtrace):\n%s",
			 opts, name, out);
	free(out);
	tu_sh(&text, "cat %s/%s.rt", fx->dir, name);
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	if (lines < min_lines)
		fail_msg("%s: %d lines of script output, expected %d at least:\n%s", name, lines,
			 min_lines, text);
	return text;
}

/* The first line perf script -F fields of DIR/name gives through the shell
 * pipeline then (newline cut), or the test fails naming what. */
static char *from_perf_script(struct fixture *fx, const char *name, const char *fields,
			      const char *then, const char *what)
{
	char *out = NULL;

	if (tu_sh(&out, "HOME=%s perf script -F %s -i %s/%s 2>/dev/null | %s", fx->home, fields,
		  fx->dir, name, then) ||
	    !out[0])
		fail_msg("no %s in perf script -F %s: %s", what, fields, out);
	out[strcspn(out, "\n")] = 0;
	return out;
}

/* report's --pid and --tid lists keep the samples perf report's keep: the
 * samples report says it shows, and the sum of perf report -n's rows (its
 * "pid" key is the thread). */
static void report_filter_as_perf(struct fixture *fx, const char *name, const char *opts)
{
	char *ours = NULL, *theirs = NULL;

	if (tu_sh(&ours, "%s report %s/%s %s --stdio | "
			 "sed -n 's/^# showing \\([0-9]*\\) samples of.*/\\1/p'",
		  tu_ringtrace(), fx->dir, name, opts) || !ours[0])
		fail_msg("ringtrace report %s: no count of the samples shown: %s", opts, ours);
	if (tu_sh(&theirs, "HOME=%s perf report -i %s/%s %s -n --no-children -g none --sort pid --stdio 2>/dev/null | "
			   "awk '!/^#/ && NF { n += $2 } END { print n + 0 }'",
		  fx->home, fx->dir, name, opts))
		fail_msg("perf report %s failed: %s", opts, theirs);
	print_message("report %s: %d samples, perf report's: %d\n", opts, atoi(ours), atoi(theirs));
	assert_int_equal(atoi(ours), atoi(theirs));
	assert_true(atoi(ours) > 0);
	free(ours);
	free(theirs);
}

/* script's filters, each against perf script's same filter on DIR/name: a
 * comm, two comms, a pid, a tid, a CPU, a time window of the recording. */
static void filters_match_perf(struct fixture *fx, const char *name)
{
	char *pid, *tid, *start, *cpu, opts[256];

	pid = from_perf_script(fx, name, "comm,pid,tid",
			       "awk '$1 == \"loadgen\" { split($2, a, \"/\"); print a[1]; exit }'",
			       "loadgen pid");
	tid = from_perf_script(fx, name, "comm,tid", "awk '$1 == \"gzip\" { print $2; exit }'",
			       "gzip tid");
	start = from_perf_script(fx, name, "time", "sed -n 50p | tr -d ' :'", "a sample's time");
	/* a CPU loadgen ran on: the scheduler chooses, run by run */
	cpu = from_perf_script(fx, name, "comm,cpu",
			       "awk '$1 == \"loadgen\" { gsub(/[][]/, \"\", $2); print $2 + 0; exit }'",
			       "loadgen's CPU");
	free(expect_same_as_perf(fx, name, "--comm loadgen", 50));
	free(expect_same_as_perf(fx, name, "--comm gzip,ls", 10));
	snprintf(opts, sizeof(opts), "--pid %s", pid);
	free(expect_same_as_perf(fx, name, opts, 50));
	snprintf(opts, sizeof(opts), "--tid %s,1", tid);
	free(expect_same_as_perf(fx, name, opts, 10));
	report_filter_as_perf(fx, name, opts);
	snprintf(opts, sizeof(opts), "--pid %s,%s", pid, tid);
	report_filter_as_perf(fx, name, opts);
	snprintf(opts, sizeof(opts), "-C %s", cpu);
	free(expect_same_as_perf(fx, name, opts, 1));
	snprintf(opts, sizeof(opts), "--cpu %s --comm loadgen -G", cpu);
	free(expect_same_as_perf(fx, name, opts, 1));
	snprintf(opts, sizeof(opts), "--time %s,%.6f", start, atof(start) + 0.2);
	free(expect_same_as_perf(fx, name, opts, 50));
	snprintf(opts, sizeof(opts), "--time ,%s -G", start);
	free(expect_same_as_perf(fx, name, opts, 10));
	free(pid);
	free(tid);
	free(start);
	free(cpu);
}

/* cpu-clock on every CPU with callchains: the load generator and a few system
 * programs (frames in libc, ld.so, the vDSO, the kernel); perf's default
 * output, and with the fields and options a profiler's converter uses. */
static void test_callchains_match_perf(void **state)
{
	struct fixture *fx = *state;
	char args[2048];
	char *text;

	tu_skip_unless_possible();
	snprintf(args, sizeof(args),
		 "-a -g -- sh -c '%s spin 1 & ls -R /usr/share/doc > /dev/null; "
		 "gzip -c /usr/bin/perf > /dev/null; cat /proc/self/maps > /dev/null; wait'",
		 tu_loadgen());
	record(fx, "callchains", args);
	text = expect_same_as_perf(fx, "callchains", "", 500);
	/* a user frame of the load generator shows as an offset in its file */
	if (!strstr(text, " loadgen_") || !strstr(text, "\t            ") ||
	    strstr(text, "\t    5555"))
		fail_msg("no loadgen frame printed as a file offset:\n%.2000s", text);
	free(text);
	free(expect_same_as_perf(fx, "callchains", "--ns", 500));
	free(expect_same_as_perf(fx, "callchains", "-F comm,pid,tid,cpu,time,period,event,ip,sym,dso",
				 500));
	free(expect_same_as_perf(fx, "callchains", "-F +pid,-period", 500));
	free(expect_same_as_perf(fx, "callchains", "-F comm,tid,time,event", 100));
	free(expect_same_as_perf(fx, "callchains", "-G", 100));
	filters_match_perf(fx, "callchains");
}

/* The load generator alone, in its own mode (perf's default per-task
 * recording): its hot functions by name, at their file offsets. */
static void test_loadgen_matches_perf(void **state)
{
	struct fixture *fx = *state;
	char args[1024];
	char *text;

	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-g -- %s mix 1", tu_loadgen());
	record(fx, "loadgen", args);
	text = expect_same_as_perf(fx, "loadgen", "", 500);
	if (!strstr(text, "loadgen_mix_16+0x"))
		fail_msg("the hot function is not named:\n%.2000s", text);
	free(text);
}

/* A C++ program (names demangled as perf shows them, without parameters) and
 * a stripped one (.dynsym only). */
static void test_cxx_and_stripped_match_perf(void **state)
{
	struct fixture *fx = *state;
	const char *symgen = tu_symgen_dir();
	char args[1024];
	char *text;

	tu_skip_unless_possible();
	if (tu_symgen_skip_reason())
		tu_skip("%s", tu_symgen_skip_reason());
	snprintf(args, sizeof(args), "-g -- %s/symgen_cxx 1", symgen);
	record(fx, "cxx", args);
	text = expect_same_as_perf(fx, "cxx", "", 100);
	if (!strstr(text, " ringtrace_test::Spinner::spin+0x"))
		fail_msg("the C++ method is not named as perf names it:\n%.2000s", text);
	free(text);
	snprintf(args, sizeof(args), "-g -- %s/symgen_stripped 1", symgen);
	record(fx, "stripped", args);
	free(expect_same_as_perf(fx, "stripped", "", 100));
}

/* A recursion 200 frames deep (unwindgen deeper), past the 127 user frames
 * the walk writes and perf script's --max-stack default alike: each sample's
 * frames as perf prints them, the kernel's before the user ones where the
 * leaf was in a system call, and some sample cut at 127 frames. */
static void test_deep_stacks_match_perf(void **state)
{
	struct fixture *fx = *state;
	char args[1024], *text, *cut = NULL;

	tu_skip_unless_possible();
	if (tu_symgen_skip_reason())
		tu_skip("%s", tu_symgen_skip_reason());
	snprintf(args, sizeof(args), "-g -- %s/unwindgen deeper 1", tu_symgen_dir());
	record(fx, "deeper", args);
	text = expect_same_as_perf(fx, "deeper", "", 1000);
	if (!strstr(text, " uw_deeper+0x"))
		fail_msg("the recursion is not named:\n%.2000s", text);
	/* perf's output: samples of 127 frames, and of 127 with the kernel's */
	assert_int_equal(tu_sh(&cut, "awk '/^unwindgen/ { n = 0; k = 0; next } "
				      "!NF { c += n == 127; ck += n == 127 && k; next } "
				      "{ n++; k += / [(][[]kernel[.]kallsyms[]][)]$/ } "
				      "END { print c + 0, ck + 0 }' %s/deeper.perf",
			      fx->dir),
			 0);
	print_message("samples cut at 127 frames: %s", cut);
	if (atoi(cut) < 100)
		fail_msg("fewer than 100 samples cut at 127 frames (all, with the kernel's): %s", cut);
	free(cut);
	free(text);
}

/* Tracepoints with a __data_loc string (sched_process_exec's filename) and
 * with pointers (sys_enter_openat's), printed by their print fmt. */
static void test_tracepoints_match_perf(void **state)
{
	struct fixture *fx = *state;
	char *text;

	tu_skip_unless_possible();
	record(fx, "tracepoints",
	       "-a -e sched:sched_process_exec,syscalls:sys_enter_openat -- "
	       "sh -c 'ls / > /dev/null; cat /etc/hostname > /dev/null'");
	text = expect_same_as_perf(fx, "tracepoints", "", 10);
	if (!strstr(text, "sched:sched_process_exec: filename=/usr/bin/ls pid=") ||
	    !strstr(text, "syscalls:sys_enter_openat: dfd: 0x"))
		fail_msg("tracepoint fields are not printed by their print fmt:\n%.2000s", text);
	free(text);
	free(expect_same_as_perf(fx, "tracepoints", "-F trace:comm,cpu,event,trace", 10));
	free(expect_same_as_perf(fx, "tracepoints", "-F comm,tid,ip,sym,dso,trace", 10));
}

/* Kernel pointers printed by %ps and %pS (timer and workqueue functions, an
 * skb's drop location): named by the recording's kernel symbols, as perf
 * names them, not printed as numbers. */
static void test_kernel_pointers_match_perf(void **state)
{
	struct fixture *fx = *state;
	char *text;

	tu_skip_unless_possible();
	record(fx, "kptr",
	       "-a -e workqueue:workqueue_execute_start,workqueue:workqueue_queue_work,"
	       "timer:hrtimer_start,timer:timer_start,skb:kfree_skb,skb:consume_skb -- "
	       "sh -c 'sync; ping -c 3 -i 0.2 127.0.0.1 > /dev/null 2>&1; sleep 0.3'");
	text = expect_same_as_perf(fx, "kptr", "", 10);
	if (!strstr(text, "function=") || strstr(text, "function=0xffff"))
		fail_msg("no kernel function named in the timer and workqueue lines:\n%.2000s", text);
	free(text);
}

/* Ties between the CPUs in perf's order: perf reads the data files in turns
 * of 2 MiB each, as their directory lists them, and keeps records of one
 * time in the order read. */

/* A recording written here with TIES_SYNTHETIC samples of two CPUs at one
 * nanosecond, wherever the 2 MiB turns fall: CPU 1 alone first (its ties lie
 * further into its file than CPU 0's, the order ringtrace once gave them),
 * then both CPUs, every TIE_EVERY-th sample of each at one time. How many
 * ties a real recording has is the host's and its load's: from none to a
 * thousand. */
#define TIES_ALONE 20000
#define TIES_BOTH 100000
#define TIE_EVERY 500
#define TIES_SYNTHETIC (TIES_BOTH / TIE_EVERY)

static void write_ties(const char *dir)
{
	struct tu_recording r;
	struct perf_sample smp = { .ip = 0xffffffff81000000ull, .period = 1 };

	tu_recording_init(&r, 2);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			   PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
			   7);
	for (unsigned int i = 0; i < TIES_ALONE; i++) {
		smp.cpu = 1;
		smp.pid = smp.tid = 101;
		smp.time = 1000000000ull + i * 1000ull;
		tu_recording_sample(&r, 0, &smp);
	}
	for (unsigned int i = 0; i < TIES_BOTH; i++) {
		uint64_t t = 2000000000ull + i * 1000ull;

		smp.cpu = 0;
		smp.pid = smp.tid = 100;
		smp.time = t + (i % TIE_EVERY ? 300 : 0);
		tu_recording_sample(&r, 0, &smp);
		smp.cpu = 1;
		smp.pid = smp.tid = 101;
		smp.time = t + (i % TIE_EVERY ? 600 : 0);
		tu_recording_sample(&r, 0, &smp);
	}
	tu_recording_write(&r, dir);
	tu_recording_free(&r);
}

/* The ties of perf script's view of fx's recording name (--ns -F cpu,time):
 * samples of one time on another CPU than the line before's. */
static int perf_ties(struct fixture *fx, const char *name)
{
	char *out = NULL;
	int n;

	assert_int_equal(tu_sh(&out, "HOME=%s perf script --ns -F cpu,time -i %s/%s 2>/dev/null | "
				     "awk '$2 == t && $1 != c { n++ } { t = $2; c = $1 } END { print n + 0 }'",
			       fx->home, fx->dir, name),
			 0);
	n = atoi(out);
	free(out);
	return n;
}

static void test_time_ties_match_perf(void **state)
{
	struct fixture *fx = *state;
	const char *lg = tu_loadgen();
	char args[1024], path[PATH_MAX];
	struct tu_record_counts c;
	int ties;

	tu_skip_unless_possible();
	if (tu_online_cpus() < 2)
		skip();
	/* the synthetic recording: every tie in perf's order */
	snprintf(path, sizeof(path), "%s/ties-written", fx->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	write_ties(path);
	ties = perf_ties(fx, "ties-written");
	print_message("written: %d ties between the CPUs\n", ties);
	assert_int_equal(ties, TIES_SYNTHETIC);
	free(expect_same_as_perf(fx, "ties-written", "--ns", TIES_ALONE + 2 * TIES_BOTH));
	/* a real one: getpid on both CPUs flat out, CPU 1 alone first */
	snprintf(args, sizeof(args),
		 "-a -e syscalls:sys_enter_getpid -- sh -c '%s --cpu 1 getpid 20000; "
		 "%s --cpu 0 getpid 200000 & %s --cpu 1 getpid 200000; wait'",
		 lg, lg, lg);
	record(fx, "ties", args);
	/* the generators outrun the rings (losses exactly counted, how many
	 * depends on the host's speed and load): every one of their 420 000
	 * calls is a sample or a loss, and every sample kept is a line below */
	snprintf(path, sizeof(path), "%s/ties", fx->dir);
	tu_count_records(path, TU_RECORDS_STRICT, &c);
	print_message("ties: %llu samples, %llu lost, %d ties between the CPUs\n",
		      (unsigned long long)c.samples, (unsigned long long)(c.lost_samples + c.lost),
		      perf_ties(fx, "ties"));
	assert_true(c.samples + c.lost_samples + c.lost >= 420000);
	assert_true(c.samples <= INT_MAX);
	free(expect_same_as_perf(fx, "ties", "--ns", (int)c.samples));
}

/* Tracepoint globs as perf takes them ("ext4:ext4_da_write_*"): every
 * tracepoint matched, in perf's order, printed as perf prints them; a glob
 * matching more than a recording can take is refused naming its count, one
 * matching none naming it. A file written and synced on the root file
 * system (ext4 here; the test needs one of these events to fire). */
static void test_tracepoint_globs_match_perf(void **state)
{
	struct fixture *fx = *state;
	char *text, *out = NULL;
	int rc;

	tu_skip_unless_possible();
	record(fx, "glob",
	       "-a -e 'ext4:ext4_da_write_*,ext4:ext4_sync_file_*' -- python3 -c "
	       "'import os\nf = open(\"/var/tmp/ringtrace-glob\", \"w\")\nf.write(\"x\" * 100000)\n"
	       "f.flush()\nos.fsync(f.fileno())\nos.unlink(\"/var/tmp/ringtrace-glob\")'");
	text = expect_same_as_perf(fx, "glob", "", 1);
	free(text);
	rc = tu_sh(&out, "%s record -e 'syscalls:*' -o %s/toomany -- true 2>&1", tu_ringtrace(),
		   fx->dir);
	print_message("syscalls:*: %d %s", rc, out);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "\"syscalls:*\" matches "));
	free(out);
	rc = tu_sh(&out, "%s record -e 'nosuch:*' -o %s/none -- true 2>&1", tu_ringtrace(), fx->dir);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(out, "no tracepoint matches \"nosuch:*\""));
	free(out);
}

/*
 * perf report --no-children --sort sym of DIR/name into DIR/name.report, its
 * call chains folded (threshold 0: every chain), a line each, sorted within
 * their entry. perf orders sibling chains of equal weight from different
 * DSOs by where its struct dso objects lie in its heap (callchain.c,
 * match_chain_dso_addresses), which reading a directory and reading one file
 * can leave in either order; the entries' order and every chain's weight are
 * the recording's. At least 5 chains, or the test fails.
 */
static void perf_report_canonical(struct fixture *fx, const char *name)
{
	char *out = NULL;
	int rc = tu_sh(&out, "HOME=%s perf report -i %s/%s --stdio --no-children --sort sym -g folded,0 2>/dev/null | "
			     "grep -v '^#' | awk '/^ /{n++; print n \"\\t0\\t\" $0; next} {print n \"\\t1\\t\" $0}' | "
			     "LC_ALL=C sort -t \"$(printf '\\t')\" -k1,1n -k2,2n -k3 | cut -f3- > %s/%s.report && "
			     "test $(grep -c '^[0-9]' %s/%s.report) -ge 5",
		       fx->home, fx->dir, name, fx->dir, name, fx->dir, name);

	if (rc)
		fail_msg("perf report of %s failed, or gave fewer than 5 chains (%d): %s", name, rc, out);
	free(out);
}

/* Hotspot's perfparser (Debian's hotspot, outside PATH) reads DIR/name to
 * its end, and of its header's features warns of none it does not warn of
 * in perf's own recording of the same clock (perf record -k mono): it reads
 * no CLOCKID feature, perf's or ours. */
static void perfparser_reads(struct fixture *fx, const char *name)
{
	char *ours = NULL, *perfs = NULL, *out = NULL;
	int rc;

	if (tu_sh(&out, "dpkg -L hotspot 2>/dev/null | grep -m1 '/hotspot-perfparser$'") || !out[0])
		fail_msg("SKIP would hide it: hotspot-perfparser is not installed (make deps installs Debian's hotspot)");
	out[strcspn(out, "\n")] = 0;
	rc = tu_sh(&ours, "%s --input %s/%s --output /dev/null 2>&1", out, fx->dir, name);
	if (rc)
		fail_msg("hotspot-perfparser cannot read %s (%d): %s", name, rc, ours);
	assert_int_equal(tu_sh(&perfs, "cd %s && perf record -q -k mono -a -o perf-k.data -- sleep 0.1 "
				       ">/dev/null 2>&1 && %s --input perf-k.data --output /dev/null 2>&1",
			       fx->dir, out), 0);
	print_message("perfparser of %s:\n%sof perf record -k mono's:\n%s", name, ours, perfs);
	for (char *line = strtok(ours, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "not properly read") && !strstr(perfs, line))
			fail_msg("hotspot-perfparser warns of %s what it does not of perf's: %s", name, line);
	free(ours);
	free(perfs);
	free(out);
}

/* ringtrace merge writes a recording as one perf.data file (0600, never
 * over a file nor through a symlink) that perf report and
 * perf script read as they read the directory, and ringtrace script too;
 * Hotspot's perfparser reads it. */
static void test_merged_file_reads_as_the_directory(void **state)
{
	struct fixture *fx = *state;
	char args[1024], *a = NULL, *b = NULL, *out = NULL;
	struct stat st;
	int rc;

	tu_skip_unless_possible();
	/* the test's own programs, not -a: beside other work, a program of
	 * another tenant (another test's, in a temporary directory) can be gone
	 * between perf's reading of the directory and of the file, and then
	 * named in one report and not in the other. mix: loadgen's five
	 * functions (16:8:4:2:1), a chain each for perf_report_canonical's
	 * five, where spin's one hot function left the count to sh and ls. */
	snprintf(args, sizeof(args),
		 "-g -e cpu-clock,sched:sched_process_exec -- sh -c 'ls / > /dev/null; %s mix 0.5'",
		 tu_loadgen());
	record(fx, "tomerge", args);
	rc = tu_sh(&out, "%s merge %s/tomerge %s/merged.data 2>&1", tu_ringtrace(), fx->dir, fx->dir);
	if (rc)
		fail_msg("merge failed (%d): %s", rc, out);
	free(out);
	{
		char path[PATH_MAX + 32];

		snprintf(path, sizeof(path), "%s/merged.data", fx->dir);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
	}
	/* perf reads the file as the directory, and so does ringtrace */
	assert_int_equal(tu_sh(&a, "HOME=%s perf script -i %s/tomerge 2>/dev/null", fx->home, fx->dir), 0);
	assert_int_equal(tu_sh(&b, "HOME=%s perf script -i %s/merged.data 2>/dev/null", fx->home, fx->dir), 0);
	assert_true(strlen(a) > 1000);
	if (strcmp(a, b))
		fail_msg("perf script of the merged file differs from the directory's");
	free(b);
	assert_int_equal(tu_sh(&b, "%s script %s/merged.data", tu_ringtrace(), fx->dir), 0);
	if (strcmp(a, b))
		fail_msg("ringtrace script of the merged file differs from perf script");
	free(a);
	free(b);
	perf_report_canonical(fx, "tomerge");
	perf_report_canonical(fx, "merged.data");
	rc = tu_sh(&out, "diff %s/tomerge.report %s/merged.data.report | head -%d", fx->dir, fx->dir,
		   DIFF_LINES);
	if (rc || out[0])
		fail_msg("perf report of the merged file differs from the directory's (< directory, > file):\n%s",
			 out);
	free(out);
	/* never over an existing file, nor through a symlink */
	rc = tu_sh(&out, "%s merge %s/tomerge %s/merged.data 2>&1", tu_ringtrace(), fx->dir, fx->dir);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "remove it or choose another name"));
	free(out);
	rc = tu_sh(&out, "ln -s %s/nowhere %s/link.data && %s merge %s/tomerge %s/link.data 2>&1; "
			 "test ! -e %s/nowhere",
		   fx->dir, fx->dir, tu_ringtrace(), fx->dir, fx->dir, fx->dir);
	assert_int_equal(rc, 0);
	free(out);
	perfparser_reads(fx, "merged.data");
}

/* A tracepoint with callchains beside a counting event: tracepoints then
 * print their ip and frames too. */
static void test_mixed_events_match_perf(void **state)
{
	struct fixture *fx = *state;
	char args[1024];

	tu_skip_unless_possible();
	snprintf(args, sizeof(args),
		 "-a -g -e sched:sched_process_exec,page-faults -- sh -c 'ls / > /dev/null; %s spin 0.2'",
		 tu_loadgen());
	record(fx, "mixed", args);
	free(expect_same_as_perf(fx, "mixed", "", 20));
}

/* page-faults without callchains: one line per sample, the sample's ip. */
static void test_page_faults_match_perf(void **state)
{
	struct fixture *fx = *state;

	tu_skip_unless_possible();
	/* a sample every 100 faults of twenty programs started: ~45 lines here
	 * (a frequency gave as few as 6: its period grows as it goes) */
	record(fx, "faults",
	       "-a -e page-faults -c 100 -- sh -c 'for i in $(seq 20); do ls /usr/bin; done > /dev/null'");
	free(expect_same_as_perf(fx, "faults", "", 10));
	free(expect_same_as_perf(fx, "faults", "-F comm,pid,tid,ip,sym,symoff,dso", 10));
}

/* A recording with losses, both transports: without --show-lost-events
 * neither prints them; with it, perf 6.1 prints PERF_RECORD_LOST records
 * and not PERF_RECORD_LOST_SAMPLES ones, and so does ringtrace; samples lost
 * are LOST_SAMPLES on both transports (the perf buffer's replayed with the
 * task of the sample after them, as the kernel stamped them), which
 * --show-lost-samples (ringtrace's) prints, and whose counts add up to what
 * the recording says it lost. */
static void lost_samples_shown(struct fixture *fx, const char *name, const char *task)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "%s script --show-lost-samples %s/%s | grep "
				     "PERF_RECORD_LOST_SAMPLES | awk '{s += $NF} END {print s + 0}'",
			       tu_ringtrace(), fx->dir, name), 0);
	assert_true(strtoull(out, NULL, 10) > 0);
	free(out);
	if (!task)
		return;
	assert_int_equal(tu_sh(&out, "%s script --show-lost-samples %s/%s | grep PERF_RECORD_LOST_SAMPLES",
			       tu_ringtrace(), fx->dir, name), 0);
	tu_print_text(out);
	if (!strstr(out, task))
		fail_msg("no LOST_SAMPLES of %s:\n%.2000s", task, out);
	free(out);
}

static void test_losses_match_perf(void **state)
{
	struct fixture *fx = *state;
	char args[1024];

	tu_skip_unless_possible();
	snprintf(args, sizeof(args),
		 "-m 1 --debug-drain-delay-ms 200 -e syscalls:sys_enter_getpid -- %s getpid 100000",
		 tu_loadgen());
	record(fx, "lost", args);
	free(expect_same_as_perf(fx, "lost", "", 10));
	free(expect_same_as_perf(fx, "lost", "--show-lost-events", 10));
	lost_samples_shown(fx, "lost", NULL);

	snprintf(args, sizeof(args),
		 "--transport perfbuf -m 1 --debug-drain-delay-ms 200 -e syscalls:sys_enter_getpid "
		 "-- %s getpid-rate 20000 1",
		 tu_loadgen());
	record(fx, "perf-lost", args);
	free(expect_same_as_perf(fx, "perf-lost", "", 10));
	free(expect_same_as_perf(fx, "perf-lost", "--show-lost-events", 10));
	lost_samples_shown(fx, "perf-lost", "loadgen");
}

/* A comm with control bytes (an escape sequence, a newline) set by the
 * process: ringtrace's script and report tables print it escaped, where
 * perf prints the bytes raw (a terminal takes them as commands; a newline
 * breaks the line). Every line of script's output is then perf's with the
 * comm escaped, and neither output holds a control byte but newlines. */
static void test_control_bytes_are_escaped(void **state)
{
	struct fixture *fx = *state;
	char args[1024], *out = NULL;
	int rc;

	tu_skip_unless_possible();
	snprintf(args, sizeof(args), "-F 999 -- %s --name \"$(printf 'ev\\033[31mil\\nx')\" spin 0.5",
		 tu_loadgen());
	record(fx, "comm", args);
	rc = tu_sh(&out, "HOME=%s perf script -i %s/comm 2>/dev/null | "
			 "perl -0777 -pe 's/ev\\x1b\\[31mil\\nx/ev\\\\x1b[31mil\\\\nx/g' > %s/comm.perf && "
			 "%s script %s/comm > %s/comm.rt && diff %s/comm.perf %s/comm.rt | head -20",
		   fx->home, fx->dir, fx->dir, tu_ringtrace(), fx->dir, fx->dir, fx->dir, fx->dir);
	if (rc || out[0])
		fail_msg("script with a hostile comm is not perf's with the comm escaped:\n%s", out);
	free(out);
	rc = tu_sh(&out, "grep -c 'ev\\\\x1b\\[31mil\\\\nx '  %s/comm.rt", fx->dir);
	if (rc || atoi(out) < 100)
		fail_msg("the escaped comm is on %s lines of script's output", out);
	free(out);
	rc = tu_sh(&out, "{ cat %s/comm.rt; %s report %s/comm --sort comm,sym; } | "
			 "perl -ne '$n++ if /[\\x00-\\x09\\x0b-\\x1f\\x7f]/; END { print $n + 0 }'",
		   fx->dir, tu_ringtrace(), fx->dir);
	if (rc || atoi(out) != 0)
		fail_msg("%s lines of script or report hold a control byte", out);
	free(out);
	rc = tu_sh(&out, "%s report %s/comm --sort comm", tu_ringtrace(), fx->dir);
	if (rc || !strstr(out, "ev\\x1b[31mil\\nx"))
		fail_msg("report does not show the comm escaped:\n%s", out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_callchains_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loadgen_matches_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_stacks_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cxx_and_stripped_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracepoints_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_pointers_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tracepoint_globs_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_ties_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merged_file_reads_as_the_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mixed_events_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_page_faults_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_losses_match_perf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_bytes_are_escaped, setup, teardown),
	};

	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
