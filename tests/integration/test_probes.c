/* SPDX-License-Identifier: GPL-2.0-only */
/* test_probes.c: uprobes, uretprobes and USDT probes (tools/sdtgen, python3's
 * function__entry) counted exactly with their arguments, as perf script reads them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

static char sdtgen[PATH_MAX];

#define PYTHON "/usr/bin/python3.11"

/* Records ARGS around CMD into dir; the summary's samples and lost, and
 * fails the test unless the recording succeeded. */
static void record(const char *dir, const char *args, const char *cmd, uint64_t *samples,
		   uint64_t *lost)
{
	char *out = NULL;
	const char *p;
	unsigned long long s = 0, l = 0;

	if (tu_sh(&out, "%s record --force -o %s %s -- %s 2>&1", tu_ringtrace(), dir, args, cmd))
		fail_msg("record %s -- %s failed:\n%s", args, cmd, out);
	p = strstr(out, "ringtrace: recorded");
	if (!p || !(p = strstr(p, ": ")) || !(p = strstr(p + 2, ": ")) ||
	    sscanf(p, ": %llu samples, %llu lost", &s, &l) != 2)
		fail_msg("no summary in:\n%s", out);
	free(out);
	*samples = s;
	*lost = l;
}

/* perf script of dir, which must read it; with ringtrace script printing
 * every line the same. Caller frees. */
static char *perf_script(const char *dir)
{
	char *perf = NULL, *ours = NULL;

	if (tu_sh(&perf, "perf script -i %s 2>/dev/null", dir))
		fail_msg("perf script cannot read %s:\n%s", dir, perf);
	if (tu_sh(&ours, "%s script %s 2>&1", tu_ringtrace(), dir))
		fail_msg("ringtrace script cannot read %s:\n%s", dir, ours);
	if (strcmp(perf, ours))
		fail_msg("ringtrace script differs from perf script:\n--- perf\n%.2000s\n--- ringtrace\n%.2000s",
			 perf, ours);
	free(ours);
	return perf;
}

/* The value of "NAME=" in line (up to its end), parsed with base 0. */
static bool field(const char *line, const char *name, long long *v)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=", name);
	p = strstr(line, key);
	return p && sscanf(p + strlen(key), "%lli", v) == 1;
}

/* Calls fn for each line of text naming event (": EVENT: "). */
static unsigned int each_line(char *text, const char *event,
			      void (*fn)(const char *line, void *ctx), void *ctx)
{
	char needle[128], *save = NULL;
	unsigned int n = 0;

	snprintf(needle, sizeof(needle), " %s: ", event);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, needle)) {
			fn(line, ctx);
			n++;
		}
	return n;
}

/* Seen arg1 values 1..N, each once. */
struct seen {
	unsigned char *hit;
	long long n;
	const char *event;
};

static void check_tick(const char *line, void *ctx)
{
	struct seen *s = ctx;
	long long a1, a2, a3;

	if (!field(line, "arg1", &a1) || !field(line, "arg2", &a2) || !field(line, "arg3", &a3))
		fail_msg("no arguments in: %s", line);
	if (a1 < 1 || a1 > s->n || s->hit[a1] || a2 != -a1 || a3 != 42)
		fail_msg("wrong arguments (want i, -i, 42, each i once) in: %s", line);
	s->hit[a1] = 1;
}

static void check_guarded(const char *line, void *ctx)
{
	struct seen *s = ctx;
	long long a1, a2;

	if (!field(line, "arg1", &a1) || !field(line, "arg2", &a2))
		fail_msg("no arguments in: %s", line);
	if (a1 < 1 || a1 > s->n || s->hit[a1] || a2 != 2 * a1)
		fail_msg("wrong arguments (want i, 2i, each i once) in: %s", line);
	s->hit[a1] = 1;
}

static void check_entry(const char *line, void *ctx)
{
	struct seen *s = ctx;
	long long a1, a2;

	/* sdtgen_add(i, 1000): the registers of its first two arguments */
	if (!field(line, "arg1", &a1) || !field(line, "arg2", &a2))
		fail_msg("no arguments in: %s", line);
	if (a1 < 1 || a1 > s->n || s->hit[a1] || a2 != 1000)
		fail_msg("wrong arguments (want i, 1000, each i once) in: %s", line);
	s->hit[a1] = 1;
}

static void check_return(const char *line, void *ctx)
{
	struct seen *s = ctx;
	long long ret;

	if (!field(line, "ret", &ret) || !strstr(line, " <- "))
		fail_msg("no return value in: %s", line);
	if (ret < 1001 || ret > 1000 + s->n || s->hit[ret - 1000])
		fail_msg("wrong return value (want i + 1000, each i once) in: %s", line);
	s->hit[ret - 1000] = 1;
}

/* Each event's samples, checked line by line; with nothing lost, exactly n
 * of each. samples + lost is every hit either way. */
static void check_events(char *script, const char *const *events,
			 void (*const *checks)(const char *, void *), unsigned int nr, long long n,
			 uint64_t samples, uint64_t lost)
{
	unsigned int total = 0;

	assert_int_equal(samples + lost, (uint64_t)n * nr);
	for (unsigned int e = 0; e < nr; e++) {
		char *copy = strdup(script);
		struct seen s = { calloc((size_t)n + 1, 1), n, events[e] };
		unsigned int got = each_line(copy, events[e], checks[e], &s);

		print_message("%s: %u samples\n", events[e], got);
		if (!lost && got != n)
			fail_msg("%s: %u samples, %lld hits", events[e], got, n);
		total += got;
		free(s.hit);
		free(copy);
	}
	assert_int_equal(total, samples);
}

static void test_usdt_counted_with_arguments(void **state)
{
	const char *const events[] = { "usdt_ringtrace_test:tick", "usdt_ringtrace_test:guarded" };
	void (*const checks[])(const char *, void *) = { check_tick, check_guarded };
	char *dir, args[3 * PATH_MAX], cmd[PATH_MAX + 16], *script;
	uint64_t samples, lost;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	/* guarded fires only while its semaphore is raised: libbpf raises it */
	snprintf(args, sizeof(args), "-e usdt:%s:ringtrace_test:tick,usdt:%s:ringtrace_test:guarded",
		 sdtgen, sdtgen);
	snprintf(cmd, sizeof(cmd), "%s 2000", sdtgen);
	record(dir, args, cmd, &samples, &lost);
	script = perf_script(dir);
	check_events(script, events, checks, 2, 2000, samples, lost);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* A ring too small and drained too late: every hit is a sample or counted
 * lost, and the samples that arrive carry their own arguments. */
static void test_usdt_losses_counted_exactly(void **state)
{
	const char *const events[] = { "usdt_ringtrace_test:tick" };
	void (*const checks[])(const char *, void *) = { check_tick };
	char *dir, args[2 * PATH_MAX], cmd[PATH_MAX + 16], *script;
	uint64_t samples, lost;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(args, sizeof(args), "-m 1 --debug-drain-delay-ms 200 -e usdt:%s:ringtrace_test:tick",
		 sdtgen);
	snprintf(cmd, sizeof(cmd), "%s 50000", sdtgen);
	record(dir, args, cmd, &samples, &lost);
	print_message("%" PRIu64 " samples + %" PRIu64 " lost\n", samples, lost);
	assert_true(lost > 0);
	assert_true(samples > 0);
	script = perf_script(dir);
	check_events(script, events, checks, 1, 50000, samples, lost);
	free(script);
	/* the losses are in the recording, as perf counts them */
	if (tu_sh(&script, "perf report -i %s --stdio 2>/dev/null | grep 'Total Lost Samples'", dir))
		fail_msg("perf report:\n%s", script);
	snprintf(cmd, sizeof(cmd), "Total Lost Samples: %" PRIu64 "\n", lost);
	if (!strstr(script, cmd))
		fail_msg("perf report says %s, the recording %s", script, cmd);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

static void test_uprobe_and_uretprobe_counted_with_values(void **state)
{
	const char *const events[] = { "uprobe_sdtgen:sdtgen_add",
				       "uprobe_sdtgen:sdtgen_add__return" };
	void (*const checks[])(const char *, void *) = { check_entry, check_return };
	char *dir, args[3 * PATH_MAX], cmd[PATH_MAX + 16], *script, *out = NULL;
	uint64_t samples, lost;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(args, sizeof(args), "-g -e uprobe:%s:sdtgen_add,uretprobe:%s:sdtgen_add", sdtgen,
		 sdtgen);
	snprintf(cmd, sizeof(cmd), "%s 1500", sdtgen);
	record(dir, args, cmd, &samples, &lost);
	script = perf_script(dir);
	check_events(script, events, checks, 2, 1500, samples, lost);
	/* -g: the uprobe's samples carry callchains perf names */
	assert_non_null(strstr(script, "sdtgen_add+0x0 (" ));
	free(script);
	/* perf report names the events from the recording alone */
	if (tu_sh(&out, "perf report -i %s --stdio 2>/dev/null | grep -A1 \"of event\"", dir))
		fail_msg("perf report:\n%s", out);
	for (unsigned int e = 0; e < 2; e++) {
		char *ours = NULL, theirs[160], mine[160];
		unsigned int n = 0;
		const char *p;

		/* ringtrace report counts each event's samples as perf report does */
		snprintf(theirs, sizeof(theirs), " of event '%s'", events[e]);
		p = strstr(out, theirs);
		assert_non_null(p);
		/* "# Samples: 1K of event": the exact count is the next line's,
		 * each sample a period of 1 */
		p = strstr(p, "# Event count (approx.): ");
		assert_non_null(p);
		assert_int_equal(sscanf(p, "# Event count (approx.): %u", &n), 1);
		if (tu_sh(&ours, "%s report %s 2>&1", tu_ringtrace(), dir))
			fail_msg("ringtrace report:\n%s", ours);
		snprintf(mine, sizeof(mine), "# event %s: %u samples\n", events[e], n);
		if (!strstr(ours, mine))
			fail_msg("ringtrace report lacks \"%s\" (perf report's count):\n%s", mine, ours);
		free(ours);
	}
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void count_realtime(const char *line, void *ctx)
{
	long long clock;

	if (strstr(line, "uprobe_libc:clock_gettime:") && field(line, "arg1", &clock) && clock == 0)
		(*(unsigned int *)ctx)++;
}

/* A library by its short name (as bpftrace and perf probe -x take it), and a
 * function glibc defines twice at one address (clock_gettime@GLIBC_2.2.5
 * and @@GLIBC_2.17, which libbpf 1.1 refused as ambiguous: "Unknown error
 * 4001"): python calling clock_gettime(CLOCK_REALTIME) 100 times. */
/* -g with a uprobe: its samples' stacks reach main, unwound in the kernel
 * from the uprobe program (whose stack, with the walk's, fits the 512 bytes
 * a kernel allows a kprobe program without private stacks:
 * test_bpf_limits), as perf script reads them. */
static void test_g_with_probes_reaches_main(void **state)
{
	char *dir, *out = NULL, *script;
	unsigned int samples = 0, with_main = 0;
	char *save = NULL;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	if (tu_sh(&out, "%s record --force -g -o %s -e uprobe:%s:sdtgen_add -- %s 200 2>&1",
		  tu_ringtrace(), dir, sdtgen, sdtgen))
		fail_msg("record -g of a uprobe:\n%s", out);
	script = perf_script(dir);
	/* each sample's block: its line, then its frames, then a blank line */
	for (char *b = strtok_r(script, "\n", &save); b; b = strtok_r(NULL, "\n", &save)) {
		if (strstr(b, " uprobe_sdtgen:sdtgen_add: "))
			samples++;
		else if (strstr(b, " main+") && strstr(b, "(" ) && strstr(b, "sdtgen)"))
			with_main++;
	}
	print_message("-g of a uprobe: %u samples, %u frames in sdtgen's main\n", samples, with_main);
	assert_int_equal(samples, 200);
	assert_int_equal(with_main, samples);
	free(script);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

static void test_uprobe_on_libc_by_short_name(void **state)
{
	char *dir, *script;
	uint64_t samples, lost;
	unsigned int realtime = 0;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	record(dir, "-e uprobe:libc:clock_gettime",
	       "python3 -c 'import time\nfor _ in range(100): time.clock_gettime(0)'", &samples,
	       &lost);
	script = perf_script(dir);
	each_line(script, "uprobe_libc:clock_gettime", count_realtime, &realtime);
	print_message("%llu samples, %u of clock_gettime(CLOCK_REALTIME)\n",
		      (unsigned long long)samples, realtime);
	assert_int_equal(lost, 0);
	assert_true(realtime >= 100);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

static void count_line(const char *line, void *ctx)
{
	long long lineno;

	if (field(line, "arg3", &lineno) && lineno == 7)
		(*(unsigned int *)ctx)++;
}

/* python3.11 fires function__entry (behind a semaphore) when a frame is
 * entered from C: here a generator's first resumption, 100 times, at the
 * line of its yield (7). */
static void test_python_function_entry(void **state)
{
	static const char program[] =
		"# ringtrace test_probes: function__entry of a known function\n"
		"\n"
		"\n"
		"\n"
		"def ringtrace_probe_gen(n):\n"
		"    for i in range(n):\n"
		"        yield i\n"
		"\n"
		"\n"
		"for _ in range(100):\n"
		"    next(ringtrace_probe_gen(1))\n";
	char *dir, args[PATH_MAX], cmd[2 * PATH_MAX], rec[PATH_MAX], *script;
	uint64_t samples, lost;
	unsigned int at_line = 0;

	(void)state;
	tu_skip_unless_possible();
	if (access(PYTHON, X_OK))
		tu_skip("%s is not installed (Debian's python3 on bookworm)", PYTHON);
	dir = tu_tempdir();
	tu_write_file(dir, "probe.py", program, sizeof(program) - 1);
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(args, sizeof(args), "-e usdt:%s:python:function__entry", PYTHON);
	snprintf(cmd, sizeof(cmd), "%s -S -I %s/probe.py", PYTHON, dir);
	record(rec, args, cmd, &samples, &lost);
	assert_int_equal(lost, 0);
	script = perf_script(rec);
	each_line(script, "usdt_python:function__entry", count_line, &at_line);
	print_message("function__entry: %" PRIu64 " samples, %u at line 7\n", samples, at_line);
	assert_int_equal(at_line, 100);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* Waits up to 10 s for file to hold text. */
static bool file_says(const char *file, const char *text)
{
	for (int i = 0; i < 200; i++) {
		char *out = NULL;
		bool says;

		tu_sh(&out, "cat %s 2>/dev/null", file);
		says = strstr(out, text) != NULL;
		free(out);
		if (says)
			return true;
		usleep(50000);
	}
	return false;
}

struct pid_tally {
	int pid;
	unsigned int of_pid, others;
};

static void tally_pid(const char *line, void *ctx)
{
	struct pid_tally *t = ctx;
	int tid = 0;

	if (sscanf(line, "%*s %d", &tid) == 1 && tid == t->pid)
		t->of_pid++;
	else
		t->others++;
}

/* -p: the binary and library named as the process maps them ("sdtgen",
 * "libc"), and only that process's hits, while another runs the same code. */
static void test_pid_scope_and_names_as_mapped(void **state)
{
	char *dir, rec[PATH_MAX], a_out[PATH_MAX + 8], b_out[PATH_MAX + 8], args[256], cmd[128];
	char *script;
	uint64_t samples, lost;
	struct pid_tally ticks, printfs;
	bool ready;
	pid_t a, b;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(a_out, sizeof(a_out), "%s/a.out", dir);
	snprintf(b_out, sizeof(b_out), "%s/b.out", dir);
	a = tu_start("exec %s 700 wait >%s", sdtgen, a_out);
	b = tu_start("exec %s 300 wait >%s", sdtgen, b_out);
	ready = file_says(a_out, "waiting") && file_says(b_out, "waiting");
	if (ready) {
		snprintf(args, sizeof(args),
			 "-p %d -e usdt:sdtgen:ringtrace_test:tick,uretprobe:libc:printf", (int)a);
		/* both fire once the probes are attached; the command ends the recording */
		snprintf(cmd, sizeof(cmd), "sh -c 'kill -USR1 %d %d; sleep 2'", (int)a, (int)b);
		record(rec, args, cmd, &samples, &lost);
	}
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	tu_wait_gone(a, 5);
	tu_wait_gone(b, 5);
	if (!ready)
		fail_msg("sdtgen did not start");
	assert_true(file_says(a_out, "700 iterations"));
	assert_int_equal(lost, 0);
	script = perf_script(rec);
	ticks = (struct pid_tally){ .pid = (int)a };
	printfs = (struct pid_tally){ .pid = (int)a };
	{
		char *copy = strdup(script);

		each_line(copy, "usdt_ringtrace_test:tick", tally_pid, &ticks);
		free(copy);
	}
	each_line(script, "uprobe_libc:printf__return", tally_pid, &printfs);
	print_message("-p %d: %u ticks of it, %u of others; %u printf returns, %u of others\n",
		      (int)a, ticks.of_pid, ticks.others, printfs.of_pid, printfs.others);
	assert_int_equal(ticks.of_pid, 700);
	assert_int_equal(ticks.others, 0);
	assert_int_equal(printfs.of_pid, 1);
	assert_int_equal(printfs.others, 0);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* One line, naming what is wrong, exit status 2. */
static void expect_usage_error(const char *args, const char *want1, const char *want2)
{
	char *out = NULL;
	int status = tu_sh(&out, "%s record -o /nonexistent/never %s -- true 2>&1", tu_ringtrace(),
			   args);

	if (status != 2 || !strstr(out, want1) || (want2 && !strstr(out, want2)) ||
	    strchr(out, '\n') != out + strlen(out) - 1)
		fail_msg("record %s: status %d, want 2 and one line with \"%s\":\n%s", args, status,
			 want1, out);
	free(out);
}

static void test_bad_probes_are_named(void **state)
{
	char args[2 * PATH_MAX], *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	expect_usage_error("-e uprobe:/nonexistent/prog:main", "/nonexistent/prog", NULL);
	expect_usage_error("-e uprobe:no_such_program_here:main", "\"no_such_program_here\" not found",
			   NULL);
	expect_usage_error("-e usdt:/etc/passwd:a:b", "/etc/passwd is not an ELF file", NULL);
	snprintf(args, sizeof(args), "-e uprobe:%s:no_such_function", sdtgen);
	expect_usage_error(args, "no function \"no_such_function\"", "sdtgen_add");
	snprintf(args, sizeof(args), "-e usdt:%s:ringtrace_test:nope", sdtgen);
	expect_usage_error(args, "no USDT probe \"ringtrace_test:nope\"", "ringtrace_test:guarded");
	expect_usage_error("-e uprobe:onlyone", "invalid probe", NULL);
	/* list: the probes with their arguments, and the functions */
	if (tu_sh(&out, "%s list usdt:%s", tu_ringtrace(), sdtgen))
		fail_msg("list usdt: %s", out);
	assert_non_null(strstr(out, ":ringtrace_test:tick  -8@"));
	assert_non_null(strstr(out, ":ringtrace_test:guarded  "));
	free(out);
	if (tu_sh(&out, "%s list uprobe:%s", tu_ringtrace(), sdtgen))
		fail_msg("list uprobe: %s", out);
	assert_non_null(strstr(out, ":sdtgen_add\n"));
	free(out);
}

/* Whether a BPF program of ours that only probes load is loaded: a link to
 * it holds it, so none loaded is no link left either. */
static bool probe_programs_loaded(void)
{
	char *out = NULL;
	bool loaded;

	tu_sh(&out, "bpftool prog show 2>&1");
	loaded = strstr(out, " name on_uprobe ") || strstr(out, " name on_usdt ");
	free(out);
	return loaded;
}

/* After kill -9 nothing stays: no program, no link, no uprobe_events entry,
 * the semaphore lowered again. */
static void test_sigkill_leaves_nothing_attached(void **state)
{
	char *dir, *out = NULL, log[PATH_MAX + 16];
	pid_t pid;
	int i;

	(void)state;
	tu_skip_unless_possible();
	if (probe_programs_loaded())
		tu_skip("another recording with probes is running");
	dir = tu_tempdir();
	snprintf(log, sizeof(log), "%s.log", dir);
	pid = tu_start("exec %s record --force -o %s -a -e usdt:%s:ringtrace_test:guarded,uretprobe:%s:sdtgen_add >%s 2>&1",
		       tu_ringtrace(), dir, sdtgen, sdtgen, log);
	for (i = 0; i < 100 && !probe_programs_loaded(); i++)
		usleep(100000);
	/* the semaphore is raised while it runs: once the probe is attached,
	 * which is after its program is loaded (a sanitized build takes a
	 * while between the two): asked again until then, 10 s at most */
	for (i = 0; i < 100; i++) {
		free(out);
		out = NULL;
		tu_sh(&out, "%s 10", sdtgen);
		if (strstr(out, "10 guarded"))
			break;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	tu_wait_gone(pid, 5);
	assert_non_null(strstr(out, "10 guarded"));
	free(out);
	for (i = 0; i < 50 && probe_programs_loaded(); i++)
		usleep(100000);
	assert_false(probe_programs_loaded());
	tu_sh(&out, "%s 10", sdtgen);
	assert_non_null(strstr(out, "0 guarded"));
	assert_null(strstr(out, "10 guarded"));
	free(out);
	tu_sh(&out, "cat /sys/kernel/tracing/uprobe_events 2>/dev/null");
	assert_null(strstr(out, "sdtgen"));
	free(out);
	unlink(log);
	tu_rmtree(dir);
	free(dir);
}

/* As nobody, a binary of the user's with one USDT probe at 20,000 sites
 * (tools/sdtgen/sdtmany.c); root records the probe. Attached as one
 * uprobe_multi link, SIGINT is answered with the totals within a second,
 * where a perf event a site (libbpf 1.1) held the recording in D state for
 * minutes, a grace period for each site's removal. The hits counted: those
 * in the files and those lost, as perf reads them. --usdt-sites below the
 * count refuses the probe, naming the option. */
static void test_many_usdt_sites_end_at_once(void **state)
{
	char *work, *out = NULL, bin[PATH_MAX + 16], dir[PATH_MAX + 16], log[PATH_MAX + 16];
	unsigned long long samples = 0, lost = 0;
	struct timespec t0, t1;
	double took;
	pid_t victim, rec;
	const char *p;
	int i;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	snprintf(bin, sizeof(bin), "%s/sdtmany", work);
	snprintf(dir, sizeof(dir), "%s/rt", work);
	snprintf(log, sizeof(log), "%s/log", work);
	if (tu_sh(&out, "chmod 755 %s && cp %s/sdtmany %s && chown 65534:65534 %s 2>&1", work,
		  tu_symgen_dir(), bin, bin))
		fail_msg("cannot give nobody the binary: %s", out);
	free(out);
	victim = tu_start("exec setpriv --reuid=65534 --regid=65534 --clear-groups %s 100 >/dev/null",
			  bin);

	/* refused below its count, naming the option */
	if (!tu_sh(&out, "%s record --force -o %s --usdt-sites 100 -p %d -e usdt:%s:ringtrace_many:tick 2>&1",
		   tu_ringtrace(), dir, (int)victim, bin))
		fail_msg("20,000 sites attached over --usdt-sites 100:\n%s", out);
	if (!strstr(out, "20000 sites") || !strstr(out, "--usdt-sites 20000"))
		fail_msg("the refusal names neither the sites nor the option:\n%s", out);
	free(out);
	out = NULL;

	rec = tu_start("exec %s record --force -o %s -p %d -e usdt:%s:ringtrace_many:tick >%s 2>&1",
		       tu_ringtrace(), dir, (int)victim, bin, log);
	/* attached once samples reach the files (20 s at most: a sanitized
	 * build loads its programs slowly) */
	for (i = 0; i < 200; i++) {
		free(out);
		out = NULL;
		tu_sh(&out, "cat %s/data.cpu* 2>/dev/null | wc -c", dir);
		if (strtoull(out, NULL, 10) > (64u << 10) || !tu_running(rec))
			break;
		usleep(100000);
	}
	free(out);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(rec, SIGINT);
	tu_wait_gone(rec, 30);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	kill(victim, SIGKILL);
	tu_wait_gone(victim, 5);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	tu_sh(&out, "cat %s", log);
	print_message("SIGINT answered in %.3f s\n%s", took, out);
	p = strstr(out, "ringtrace: recorded");
	if (!p || !(p = strstr(p, ": ")) || !(p = strstr(p + 2, ": ")) ||
	    sscanf(p, ": %llu samples, %llu lost", &samples, &lost) != 2)
		fail_msg("no totals:\n%s", out);
	free(out);
	assert_true(samples > 0);
	/* 1 s is the goal; a busy machine's scheduling given another */
	if (took > 2.0)
		fail_msg("SIGINT answered in %.3f s", took);
	/* every hit counted: in the files, or lost, as perf reads them */
	tu_sh(&out, "perf script -i %s 2>/dev/null | grep -c ringtrace_many:tick", dir);
	assert_int_equal(strtoull(out, NULL, 10), samples);
	free(out);
	tu_sh(&out, "perf report -i %s --stdio 2>/dev/null | grep 'Total Lost Samples' || "
		    "echo 'Total Lost Samples: 0'", dir);
	if (strtoull(strchr(out, ':') + 1, NULL, 10) != lost)
		fail_msg("perf report says %s, the totals %llu", out, lost);
	free(out);
	tu_rmtree(work);
	free(work);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usdt_counted_with_arguments),
		cmocka_unit_test(test_usdt_losses_counted_exactly),
		cmocka_unit_test(test_uprobe_and_uretprobe_counted_with_values),
		cmocka_unit_test(test_g_with_probes_reaches_main),
		cmocka_unit_test(test_uprobe_on_libc_by_short_name),
		cmocka_unit_test(test_python_function_entry),
		cmocka_unit_test(test_pid_scope_and_names_as_mapped),
		cmocka_unit_test(test_bad_probes_are_named),
		cmocka_unit_test(test_sigkill_leaves_nothing_attached),
		cmocka_unit_test(test_many_usdt_sites_end_at_once),
	};
	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(sdtgen, sizeof(sdtgen), "%s/sdtgen", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
