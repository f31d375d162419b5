/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind.c: real-world stacks: --call-graph dwarf unwound by ringtrace and perf,
 * -g unwound in the kernel (deep, dlopen, gzip), JIT maps, debuginfod. */
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
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static char symgen_dir[PATH_MAX];

/* libc's start as perf names it from Debian's debug file (libc6-dbg, a test
 * dependency): the versioned name the debug file spells. */
#define LIBC_START_MAIN "__libc_start_main@@GLIBC_2.34"
#define LIBC_START_MAIN_DWARF "__libc_start_main_impl" /* its inlined frame's name (libc6-dbg) */

/* What a --call-graph dwarf sample of cpu-clock holds. */
#define SAMPLE_TYPE_DWARF                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |     \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER)

/* Of the folded stacks of comm in out, the samples in all, and those whose
 * stack holds needle. */
static void folded_count(const char *out, const char *comm, const char *needle,
			 unsigned long *total, unsigned long *matching)
{
	size_t n = strlen(comm);

	*total = *matching = 0;
	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n'), *space;
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char buf[8192];

		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		space = strrchr(buf, ' ');
		if (space && !strncmp(buf, comm, n) && buf[n] == ';') {
			unsigned long count = strtoul(space + 1, NULL, 10);

			*total += count;
			if (strstr(buf, needle))
				*matching += count;
		}
		line = end ? end + 1 : NULL;
	}
}

/* Of the samples of comm that perf script prints (blocks: a header line,
 * then a frame per line), how many there are, and how many have these
 * frames (symbol names) one after the other. */
static void perf_script_count(const char *out, const char *comm, const char *const *frames,
			      size_t nr_frames, unsigned long *total, unsigned long *matching)
{
	const char *block = out;

	*total = *matching = 0;
	while (block && *block) {
		const char *end = strstr(block, "\n\n"), *line;
		size_t len = end ? (size_t)(end - block) : strlen(block), at = 0;
		char *b = strndup(block, len);

		assert_non_null(b);
		line = b + strspn(b, " \n");
		if (!strncmp(line, comm, strlen(comm))) {
			char *save = NULL;

			(*total)++;
			strtok_r(b + (line - b), "\n", &save); /* the header */
			for (char *f = strtok_r(NULL, "\n", &save); f && at < nr_frames;
			     f = strtok_r(NULL, "\n", &save)) {
				char want[128];

				snprintf(want, sizeof(want), " %s+0x", frames[at]);
				at = strstr(f, want) ? at + 1 : 0;
			}
			if (at == nr_frames)
				(*matching)++;
		}
		free(b);
		block = end ? end + 2 : NULL;
	}
}

/* Of record -v's totals in out, the user frames the walks wrote and those
 * their quick path took. */
static void quick_frames(const char *out, unsigned long *frames, unsigned long *quick)
{
	const char *line = strstr(out, "ringtrace: user frames: "),
		   *q = strstr(out, "ringtrace: user frames by the walk's quick path: ");

	if (!line || !q || sscanf(line, "ringtrace: user frames: %lu", frames) != 1 ||
	    sscanf(q, "ringtrace: user frames by the walk's quick path: %lu", quick) != 1)
		fail_msg("no frames' totals:\n%s", out);
	print_message("%lu of %lu user frames by the quick path\n", *quick, *frames);
	assert_true(*quick <= *frames);
}

/* The folded stacks (report --folded) of what "ringtrace record
 * RECORD_ARGS -o DIR -- CMD" records, cmd a shell command run with
 * SYMGEN_DIR as $D; the recording removed. Fails the test if it fails. */
static char *record_folded(const char *record_args, const char *cmd)
{
	char *dir = tu_tempdir(), *out = NULL, *folded = NULL;
	int rc;

	rc = tu_sh(&out, "export D=%s; %s record %s --force -o %s -- sh -c '%s' 2>&1", symgen_dir,
		   tu_ringtrace(), record_args, dir, cmd);
	if (rc)
		fail_msg("record %s -- %s failed:\n%s", record_args, cmd, out);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s --folded", tu_ringtrace(), dir), 0);
	tu_rmtree(dir);
	free(dir);
	return folded;
}

/* At least min_total samples of comm in folded, and min_percent of them
 * whose stack holds needle; printed under label. */
static void expect_share(const char *folded, const char *comm, const char *needle,
			 unsigned long min_total, unsigned int min_percent, const char *label)
{
	unsigned long total, full;

	folded_count(folded, comm, needle, &total, &full);
	print_message("%s: %lu of %lu samples with %s\n", label, full, total, needle);
	assert_true(total >= min_total);
	assert_true(full * 100 >= total * min_percent);
}

static void test_dwarf_unwinds_frameless_chain(void **state)
{
	static const char *const chain[] = { "uw_c", "uw_b", "uw_a", "main" };
	char prog[PATH_MAX + 32], *dir, *out = NULL, *script = NULL, *folded = NULL;
	unsigned long total, full, ptotal, pfull;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	/* built like Debian's binaries: no frame pointer anywhere in the chain */
	assert_int_equal(tu_sh(&out, "objdump -d %s | grep -A3 '<uw_b>:' | grep -c 'push.*%%rbp' || true",
			       prog), 0);
	assert_int_equal(atoi(out), 0);
	free(out);
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record --call-graph dwarf -F 999 --force -o %s -- %s chain 2 2>&1",
		   tu_ringtrace(), dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s --folded", tu_ringtrace(), dir), 0);
	folded_count(folded, "unwindgen", ";main;uw_a;uw_b;uw_c", &total, &full);
	assert_int_equal(tu_sh(&script, "perf script -i %s --comms unwindgen 2>/dev/null", dir), 0);
	perf_script_count(script, "unwindgen", chain, 4, &ptotal, &pfull);
	print_message("ringtrace: %lu of %lu samples with main;uw_a;uw_b;uw_c; perf script: %lu of %lu\n",
		      full, total, pfull, ptotal);
	/* 2 s at 999 Hz, far fewer on a busy machine: enough for the shares,
	 * and perf reads as many in the same recording */
	assert_true(total >= 100);
	assert_int_equal(ptotal, total);
	assert_true(full * 100 >= total * 95);
	assert_true(pfull * 100 >= ptotal * 95);
	/* and through libc's start to _start, as perf shows it (with libc's
	 * debug information, __libc_start_main is its DWARF name, "inlined") */
	folded_count(folded, "unwindgen", "unwindgen;_start;" LIBC_START_MAIN ";__libc_start_call_main;main;uw_a",
		     &total, &full);
	folded_count(folded, "unwindgen",
		     "unwindgen;_start;" LIBC_START_MAIN_DWARF ";__libc_start_call_main;main;uw_a", &total,
		     &pfull);
	assert_true((full + pfull) * 100 >= total * 95);
	free(folded);
	free(script);
	/* script prints the recording as perf script does, inlined frames
	 * (libc's, from libc6-dbg) too */
	rc = tu_sh(&out, "cd %s && %s script . > ours && perf script -i . > theirs 2>/dev/null && "
			 "diff theirs ours; r=$?; echo inlined: $(grep -c '(inlined)' theirs); exit $r",
		   dir, tu_ringtrace());
	tu_print_text(out);
	if (rc)
		fail_msg("script is not perf script's (<: perf, >: ringtrace):\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* perf unwinds a --call-graph dwarf recording of a command through the
 * libraries the command maps: the recording holds no mappings of ringtrace's
 * own image under the command's pid before its exec (perf would keep them,
 * and unwind xz's frames in liblzma, which ringtrace maps too, at ringtrace's
 * addresses: none of 993 samples reached libc's start). */
static void test_dwarf_command_unwound_by_perf(void **state)
{
	static const char *const to_main[] = { "__libc_start_call_main" };
	char *dir, *out = NULL, *script = NULL;
	unsigned long total, full;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	rc = tu_sh(&out, "head -c 3000000 /dev/urandom > %s/in && %s record --call-graph dwarf -F 999 -o %s/rec "
			 "-- xz -9 -c %s/in 2>&1 > /dev/null",
		   dir, tu_ringtrace(), dir, dir);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&script, "perf script -i %s/rec --comms xz 2>/dev/null", dir), 0);
	/* through libc's start (xz is stripped: its main has no name), the leaf
	 * in liblzma as often as not */
	perf_script_count(script, "xz", to_main, 1, &total, &full);
	print_message("perf script: %lu of %lu xz samples reach __libc_start_call_main\n", full,
		      total);
	assert_true(total > 100);
	assert_true(full * 100 >= total * 90);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* -g (--call-graph ehframe): the same frameless chain unwound in the kernel
 * into the plain callchain, which ringtrace and perf script both show, at a
 * few hundred bytes per sample. */

/* A program built without unwind tables (-fno-asynchronous-unwind-tables
 * -g): its functions' CFI is only in .debug_frame, which -g's tables read
 * where the .eh_frame says nothing. */
static void test_ehframe_reads_debug_frame(void **state)
{
	char *folded;
	char *out = NULL, *dir;
	unsigned long frames, first, eh, debug, signal, fp;
	const char *line;

	(void)state;
	tu_skip_unless_possible();
	folded = record_folded("-g -F 999 --unwind-cache none", "exec $D/unwindgen_debugframe chain 2");
	expect_share(folded, "unwindgen_debug", ";main;uw_a;uw_b;uw_c", 500, 95, "debug_frame");
	free(folded);
	/* its own frames counted apart from libc's .eh_frame ones, the
	 * frames' line adding up */
	dir = tu_tempdir();
	assert_int_equal(tu_sh(&out, "%s record -v -g -F 999 --unwind-cache none --force -o %s -- "
				     "%s/unwindgen_debugframe chain 1 2>&1", tu_ringtrace(), dir,
			       symgen_dir), 0);
	line = strstr(out, "ringtrace: user frames: ");
	if (!line || sscanf(line, "ringtrace: user frames: %lu (%lu sampled registers, %lu by "
				  ".eh_frame, %lu by .debug_frame, %lu after a signal, %lu by frame "
				  "pointers", &frames, &first, &eh, &debug, &signal, &fp) != 6)
		fail_msg("no frames' totals:\n%s", out);
	print_message("%.*s\n", (int)strcspn(line, "\n"), line);
	assert_int_equal(frames, first + eh + debug + signal + fp);
	/* main, uw_a, uw_b, uw_c by .debug_frame; libc's start by .eh_frame */
	assert_true(debug > eh);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* libc's __vfork pops its return address into rdi across the system call
 * (its CFI says so): at each vfork's return (sys_exit_vfork, the parent's
 * and the child's), the stack goes on through its caller, loadgen's
 * loadgen_vfork_caller, to main (before: the walk fell back to frame
 * pointers there and lost the caller). */
static void test_ehframe_return_address_in_a_register(void **state)
{
	char *folded, cmd[PATH_MAX + 64];

	(void)state;
	tu_skip_unless_possible();
	snprintf(cmd, sizeof(cmd), "exec %s vfork 200", tu_loadgen());
	folded = record_folded("-g -e syscalls:sys_exit_vfork", cmd);
	expect_share(folded, "loadgen", ";main;loadgen_vfork_caller;__vfork", 400, 99, "vfork");
	free(folded);
}

/* The dynamic loader's start (its _start and _dl_start_user have no CFI):
 * a stack under it is complete, its entry point's code the outermost frame,
 * not a bad frame. 300 runs of /bin/true, sampled at 4999 Hz: most of
 * their stacks are in ld.so's start-up. And a sample inside execve, once
 * the new image's address space is in place, holds the old image's pc
 * alone (as perf's): its walk ends "in an exec", not as a failed read
 * (78 of 708 stacks were counted "read failed" before 2026-12-02, 0 after). */
static void test_ehframe_loader_start_is_outermost(void **state)
{
	char *dir, *out = NULL;
	unsigned long bad, all, read_failed = 0, in_exec = 0;
	const char *line;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	assert_int_equal(tu_sh(&out, "%s record -v -g -F 4999 --force -o %s -- "
				     "sh -c 'for i in $(seq 300); do /bin/true; done' 2>&1",
			       tu_ringtrace(), dir), 0);
	if (!(line = tu_stack_endings(out, &bad, &all)))
		fail_msg("no stacks' totals:\n%s", out);
	print_message("%.*s\n", (int)strcspn(line, "\n"), line);
	assert_true(all >= 100);
	/* 71% before the rule; after it 1-7% a run (5 to 50 of 600-1000 here
	 * on 2026-12-02, the cause of the spread not found: a CI run's 40 of
	 * 601 failed a 5% bound) */
	if (bad * 10 > all)
		fail_msg("%lu of %lu stacks ended as a bad frame:\n%s", bad, all, out);
	assert_non_null(strstr(line, " read failed, "));
	assert_non_null(strstr(line, " in an exec"));
	sscanf(strstr(line, "user space, "), "user space, %lu read failed", &read_failed);
	sscanf(strstr(line, " truncated, "), " truncated, %lu in an exec", &in_exec);
	if (read_failed * 50 > all || !in_exec)
		fail_msg("%lu of %lu stacks a failed read, %lu in an exec:\n%s", read_failed, all,
			 in_exec, out);
	free(out);
	assert_int_equal(tu_sh(&out, "%s report %s --folded | grep -c '^true;_dl_start_user;'",
			       tu_ringtrace(), dir), 0);
	assert_true(atoi(out) > 0);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* -a -g of a program already running when the recording starts: its
 * tables are built from the side-band synthesized at the start, from files
 * opened before the capabilities are dropped. */
static void test_ehframe_unwinds_running_process(void **state)
{
	char *folded;
	pid_t busy;

	(void)state;
	tu_skip_unless_possible();
	busy = tu_start("exec %s/unwindgen chain 9", symgen_dir);
	usleep(300000);
	folded = record_folded("-a -g -F 999", "sleep 6");
	kill(busy, SIGKILL);
	tu_wait_gone(busy, 5);
	/* all but those taken before its table was built: the tables of
	 * every running process are built in slices between drains, about
	 * a second of a sanitized build's start (0% before they could be) */
	expect_share(folded, "unwindgen", ";main;uw_a;uw_b;uw_c", 500, 60, "running process");
	free(folded);
}

/* -g of a process forked, by one already running, as the recording begins,
 * while the tables of what ran at the start are still being built (held back
 * 3 s here, as on a machine of many processes): it unwinds with them once
 * they are built. Under -a and under -p of the parent (which follows its
 * forks). The command ringtrace runs, once it is recording, tells the parent
 * to fork. */
static void child_forked_during_start(bool of_parent)
{
	char *dir, *out = NULL, *folded = NULL, *tasks = NULL, target[64];
	unsigned long total, full;
	pid_t parent;
	int rc;

	/* idle until SIGUSR1, then the chain in a child for 7 s */
	parent = tu_start("exec %s/unwindgen fork 7", symgen_dir);
	usleep(300000);
	if (of_parent)
		snprintf(target, sizeof(target), "-p %d", (int)parent);
	else
		snprintf(target, sizeof(target), "-a");
	dir = tu_tempdir();
	rc = tu_sh(&out, "%s record %s -g -F 999 --debug-start-tables-delay-ms 3000 --force -o %s "
			 "-- sh -c 'kill -USR1 %d; sleep 8' 2>&1",
		   tu_ringtrace(), target, dir, (int)parent);
	kill(parent, SIGKILL);
	tu_wait_gone(parent, 5);
	if (rc)
		fail_msg("record failed:\n%s", out);
	/* the fork came after the start (the kernel's FORK record, not /proc's) */
	tu_sh(&tasks, "perf script -i %s --show-task-events 2>/dev/null | "
		      "grep -c 'PERF_RECORD_FORK(.*):(%d:%d)'", dir, (int)parent, (int)parent);
	if (atoi(tasks) < 1)
		fail_msg("%s: no FORK record of the parent's; record said:\n%s", target, out);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s --folded", tu_ringtrace(), dir), 0);
	folded_count(folded, "unwindgen", ";main;uw_a;uw_b;uw_c", &total, &full);
	print_message("%s: child forked during the start: %lu of %lu samples with main;uw_a;uw_b;uw_c\n",
		      target, full, total);
	assert_true(total >= 300); /* 7 s at 999 Hz, fewer on a busy machine */
	/* the child runs 7 s of the recording, the last ~4 of them with the
	 * tables (about 57% of its samples) */
	assert_true(full * 100 >= total * 35);
	free(tasks);
	free(folded);
	tu_rmtree(dir);
	free(dir);
}

static void test_ehframe_unwinds_child_forked_during_start(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	child_forked_during_start(false);
	child_forked_during_start(true);
}

/* Bytes per sample of a recording, from the totals line record printed in out. */
static double bytes_per_sample(const char *out)
{
	const char *line = strstr(out, "samples, ");
	unsigned long samples = 0;
	double kib = 0;

	assert_non_null(line);
	while (line > out && line[-1] != ':')
		line--;
	assert_int_equal(sscanf(line, " %lu samples, %*u lost, %lf KiB", &samples, &kib), 2);
	assert_true(samples > 0);
	return kib * 1024 / (double)samples;
}

static void test_ehframe_unwinds_frameless_chain(void **state)
{
	/* the whole path, as perf script prints it */
	static const char *const chain[] = { "uw_c", "uw_b", "uw_a", "main",
					     "__libc_start_call_main", LIBC_START_MAIN, "_start" };
	char prog[PATH_MAX + 32], *dir, *out = NULL, *script = NULL, *folded = NULL;
	unsigned long total, full, ptotal, pfull, frames, quick;
	double bytes, fp_bytes;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	dir = tu_tempdir();
	/* frame pointers' bytes per sample on the same program */
	rc = tu_sh(&out, "%s record --call-graph fp -F 999 --force -o %s -- %s chain 1 2>&1",
		   tu_ringtrace(), dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	fp_bytes = bytes_per_sample(out);
	free(out);
	rc = tu_sh(&out, "%s record -v -g -F 999 --force -o %s -- %s chain 2 2>&1", tu_ringtrace(),
		   dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	tu_print_text(out);
	bytes = bytes_per_sample(out);
	assert_non_null(strstr(out, "by .eh_frame"));
	/* the walks' quick path takes nearly every frame of a stack that
	 * repeats: all but those of the first walks, before their rows were
	 * kept (99.8% here; those before the tables are loaded, a cold cache's
	 * on a busy machine, are not either) */
	quick_frames(out, &frames, &quick);
	assert_true(quick * 100 >= frames * 80);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s --folded", tu_ringtrace(), dir), 0);
	folded_count(folded, "unwindgen", ";main;uw_a;uw_b;uw_c", &total, &full);
	assert_int_equal(tu_sh(&script, "perf script -i %s --comms unwindgen 2>/dev/null", dir), 0);
	perf_script_count(script, "unwindgen", chain, 7, &ptotal, &pfull);
	print_message("ringtrace: %lu of %lu samples with main;uw_a;uw_b;uw_c; perf script: %lu of %lu "
		      "through _start; %.0f bytes per sample (fp: %.0f)\n",
		      full, total, pfull, ptotal, bytes, fp_bytes);
	/* enough samples of the chain for the shares even on a loaded machine,
	 * and perf reads as many in the same recording */
	assert_true(total >= 100);
	assert_int_equal(ptotal, total);
	assert_true(full * 100 >= total * 95);
	assert_true(pfull * 100 >= ptotal * 95);
	/* through libc's start to _start, from libc's table */
	folded_count(folded, "unwindgen", "unwindgen;_start;" LIBC_START_MAIN ";__libc_start_call_main;main;uw_a",
		     &total, &full);
	assert_true(full * 100 >= total * 95);
	/* a callchain, no registers or stack copies: far below dwarf's 8 KiB,
	 * within twice what frame pointers' shorter chains take */
	assert_true(bytes < 512);
	assert_true(bytes <= 2 * fp_bytes);
	free(folded);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* -g on a stack 40 frameless frames deep (45 in all): every frame, through
 * libc's start. */
static void test_ehframe_unwinds_deep_stack(void **state)
{
	char needle[1024], *folded;

	(void)state;
	tu_skip_unless_possible();
	folded = record_folded("-g -F 999", "exec $D/unwindgen deep 2");
	snprintf(needle, sizeof(needle), "unwindgen;_start;%s;__libc_start_call_main;main",
		 LIBC_START_MAIN);
	for (int i = 0; i < 40; i++)
		strcat(needle, ";uw_deep");
	strcat(needle, ";uw_c");
	expect_share(folded, "unwindgen", needle, 500, 95, "deep (all 45 frames)");
	free(folded);
}

/* -g through a library the program loads with dlopen once running (Debian's
 * zlib, no frame pointers): its table is made from the side-band's MMAP2. */
static void test_ehframe_unwinds_dlopened_library(void **state)
{
	unsigned long total, in_zlib, whole;
	char *folded;

	(void)state;
	tu_skip_unless_possible();
	if (access("/lib/x86_64-linux-gnu/libz.so.1", R_OK))
		tu_skip("no libz.so.1 (zlib1g) to dlopen");
	folded = record_folded("-g -F 999", "exec $D/unwindgen dlopen 2");
	folded_count(folded, "unwindgen", ";compress2;", &total, &in_zlib);
	folded_count(folded, "unwindgen", "unwindgen;_start;" LIBC_START_MAIN
		     ";__libc_start_call_main;main;uw_zlib;compress2;", &total, &whole);
	print_message("dlopen: %lu of %lu samples in zlib reach _start\n", whole, in_zlib);
	assert_true(in_zlib > 300);
	assert_true(whole * 100 >= in_zlib * 95);
	free(folded);
}

/* A distro binary built without frame pointers (gzip, stripped), recorded
 * with call_graph, through libc's start: its stacks reach main and the
 * frames under it. */
static void gzip_through_libc(const char *call_graph)
{
	char *dir = tu_tempdir(), *folded, args[256], cmd[PATH_MAX + 64];
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(NULL, "head -c 40000000 /dev/urandom > %s/big", dir);
	assert_int_equal(rc, 0);
	snprintf(args, sizeof(args), "%s -F 499", call_graph);
	snprintf(cmd, sizeof(cmd), "gzip -c %s/big >/dev/null", dir);
	folded = record_folded(args, cmd);
	/* _start, libc's start, then gzip's main and at least one more frame
	 * (libc's start by its DWARF name where --call-graph dwarf frames
	 * are named from libc's debug information, as perf names them) */
	expect_share(folded, "gzip",
		     strstr(folded, ";" LIBC_START_MAIN_DWARF ";")
			     ? ";" LIBC_START_MAIN_DWARF ";__libc_start_call_main;[gzip];"
			     : ";" LIBC_START_MAIN ";__libc_start_call_main;[gzip];",
		     200, 90, "gzip");
	free(folded);
	tu_rmtree(dir);
	free(dir);
}

/* -g on Debian's gzip: unwound in the kernel from .eh_frame. */
static void test_ehframe_distro_program_through_libc(void **state)
{
	(void)state;
	gzip_through_libc("-g");
}

/* The differential check of the in-kernel unwinder: cmd recorded with
 * --call-graph ehframe+dwarf, so each sample holds both the user frames the
 * kernel unwound from .eh_frame tables and the registers and stack copy
 * that libdw unwinds; report --unwind-check compares them frame by frame
 * (the recording holds cmd's samples only). At least 99% of the frames agree, over at least
 * min_samples samples of at least min_depth frames on average. cmd runs in
 * a directory of its own, after setup (a shell command, or NULL). The
 * frames that differ are those of the samples taken in the milliseconds
 * after the exec, before the side-band told ringtrace of the new mappings
 * (the kernel's frame-pointer walk, counted as "no process"): a fixed few,
 * 1.1% of a sanitized build's 2-second run on a loaded machine, so the
 * programs run 4 s. */
static void unwind_check(const char *label, const char *record_args, const char *setup,
			 const char *cmd, unsigned long min_samples, double min_depth)
{
	char *dir = tu_tempdir(), *out = NULL;
	unsigned long both = 0, whole = 0, frames = 0, agreed = 0, sb_lost = 1, walked = 0, quick = 0;
	const char *line;
	int rc;

	/* the side-band tracks every process of the machine: when its ring
	 * overflowed (others' builds), the command's own MMAP2 records may be
	 * what was lost, and neither unwinder then knows its files; such a
	 * recording says nothing of the unwinders, and is made again */
	for (int attempt = 0; attempt < 3 && sb_lost; attempt++) {
		free(out);
		rc = tu_sh(&out, "cd %s && %s && %s record -v --call-graph ehframe+dwarf -F 499 %s --force -o %s/rt -- %s 2>&1 >/dev/null",
			   dir, setup ? setup : "true", tu_ringtrace(), record_args, dir, cmd);
		if (rc)
			fail_msg("record failed:\n%s", out);
		tu_print_text(out); /* its totals, the side-band's and the unwinder's */
		line = strstr(out, "\n   all ");
		assert_non_null(line);
		assert_int_equal(sscanf(line, " all %*u %*u %*u %*u %*u %lu", &sb_lost), 1);
	}
	/* the quick path off where it is asked to be */
	quick_frames(out, &walked, &quick);
	if (strstr(record_args, "--debug-full-steps"))
		assert_int_equal(quick, 0);
	else
		assert_true(quick > 0);
	if (sb_lost)
		fail_msg("the side-band lost records in 3 recordings in a row: the machine is too busy to check");
	free(out);
	rc = tu_sh(&out, "%s report %s/rt --unwind-check 2>&1", tu_ringtrace(), dir);
	if (rc)
		fail_msg("report --unwind-check failed:\n%s", out);
	print_message("%s:\n%s", label, out);
	line = strstr(out, "samples unwound both ways");
	assert_non_null(line);
	while (line > out && line[-1] != ':')
		line--;
	assert_int_equal(sscanf(line, " %lu samples unwound both ways, %lu", &both, &whole), 2);
	line = strstr(out, "  total\n");
	assert_non_null(line);
	while (line > out && line[-1] != '\n')
		line--;
	assert_int_equal(sscanf(line, " %lu %lu", &frames, &agreed), 2);
	assert_true(both >= min_samples);
	assert_true((double)frames / (double)both >= min_depth);
	assert_true(agreed * 100 >= frames * 99);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* unwind_check of unwindgen's workload run for 4 s: at least 300 samples. */
static void unwindgen_check(const char *label, const char *record_args, const char *workload,
			    double min_depth)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "%s/unwindgen %s 4", symgen_dir, workload);
	unwind_check(label, record_args, NULL, cmd, 300, min_depth);
}

/* The frameless chain main -> uw_a -> uw_b -> uw_c: shallow stacks (7
 * frames in uw_c, fewer in clock_gettime's callers). */
static void test_unwind_check_shallow(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwindgen_check("shallow (chain)", "", "chain", 6);
}

/* 40 frameless uw_deep frames: stacks of 47 frames. */
static void test_unwind_check_deep(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwindgen_check("deep", "", "deep", 40);
}

/* The same recursion with a frame pointer: each frame's CFA rbp + 16, rbp
 * and rbx saved (quick_run's other rules). */
static void test_unwind_check_deep_frame_pointers(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwindgen_check("deep, frame pointers", "", "deepfp", 40);
}

/* A sampled frame whose CFA is in r12 (unwindgen's uw_cfa_reg, its stack
 * realigned below the CFA): the walk reads r12 from the task's saved
 * registers, which it looks up only for such a rule (REGS_AT_TASK); a third
 * of the samples are taken in its getppid calls, their walk started from
 * those registers. */
static void test_unwind_check_cfa_register(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwindgen_check("CFA in r12", "", "cfareg", 4);
}

/* zlib, dlopen'd once the recording runs, and clock_gettime in the vdso. */
static void test_unwind_check_dlopen(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	if (access("/lib/x86_64-linux-gnu/libz.so.1", R_OK))
		tu_skip("no libz.so.1 (zlib1g) to dlopen");
	unwindgen_check("dlopen", "", "dlopen", 5);
}

/* Debian's gzip (stripped, no frame pointers) and libc. */
static void test_unwind_check_distro_program(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwind_check("gzip", "", "head -c 40000000 /dev/urandom > big", "gzip -c big", 200, 5);
}

/* The walk without its quick path (rows kept by pc, steps taken inline
 * within the stack already read; record --debug-full-steps): every frame's
 * row looked up and stepped by the kernel side's step function, as libdw
 * unwinds the same samples, on the deep stack and on gzip's. The tests
 * above check the quick path, which takes most of their frames. */
static void test_unwind_check_full_steps(void **state)
{
	(void)state;
	tu_skip_unless_possible();
	unwindgen_check("deep, full steps", "--debug-full-steps", "deep", 40);
	unwind_check("gzip, full steps", "--debug-full-steps", "head -c 40000000 /dev/urandom > big",
		     "gzip -c big", 200, 5);
}

/* The "N read from the cache" count of record's totals in out. */
static unsigned long from_cache(const char *out)
{
	const char *line = strstr(out, "ringtrace: unwind tables: ");
	unsigned long files = 0, cached = 0;

	assert_non_null(line);
	assert_int_equal(sscanf(line, "ringtrace: unwind tables: %lu files, %*u rows loaded (%*f MiB of %*f in the map at the end), %*u evicted (%*u rows: no process mapped them, room needed), built in %*f s (%lu read",
				&files, &cached), 2);
	assert_true(files > 0);
	return cached;
}

/* Records unwindgen chain 1 with -g and the cache in cache (or none): the
 * output, and whether the chain is whole in 95% of the samples. */
static char *record_chain_cached(const char *dir, const char *cache)
{
	char prog[PATH_MAX + 32], *out = NULL, *folded = NULL;
	unsigned long total, full;
	int rc;

	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	rc = tu_sh(&out, "%s record -v -g --unwind-cache %s -F 999 --force -o %s/rec -- %s chain 1 2>&1",
		   tu_ringtrace(), cache, dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), dir), 0);
	folded_count(folded, "unwindgen", ";main;uw_a;uw_b;uw_c", &total, &full);
	assert_true(total > 100);
	assert_true(full * 100 >= total * 95);
	free(folded);
	return out;
}

/* --unwind-cache: the tables compiled once are read back the next time (a
 * directory 0700, files 0600); a corrupt file, one another user owns, one
 * others may write and a symlink are misses, rebuilt and unwound as well;
 * none keeps nothing. */
static void test_unwind_cache(void **state)
{
	char *dir, cache[PATH_MAX], *out = NULL, *ls = NULL;
	unsigned long cold, warm;

	(void)state;
	tu_skip_unless_possible();
	dir = tu_tempdir();
	snprintf(cache, sizeof(cache), "%s/cache/unwind", dir);
	out = record_chain_cached(dir, cache);
	cold = from_cache(out);
	free(out);
	assert_int_equal(tu_sh(&ls, "stat -c '%%a %%U' %s && cd %s && stat -c '%%a %%U %%F' * | sort -u && ls | grep -c . ",
			       cache, cache), 0);
	print_message("cache directory and files:\n%s", ls);
	assert_true(!strncmp(ls, "700 root\n600 root regular file\n",
			     strlen("700 root\n600 root regular file\n")));
	free(ls);
	out = record_chain_cached(dir, cache);
	warm = from_cache(out);
	print_message("cold run: %lu tables from the cache; warm: %lu\n", cold, warm);
	assert_int_equal(cold, 0);
	assert_true(warm >= 3); /* the program, libc, ld.so (and the vdso) */
	free(out);
	/* spoil every file: a byte of the rows flipped, another owner, writable
	 * by others, a symlink to a good copy */
	assert_int_equal(tu_sh(&out, "cd %s && set -- $(ls) && mkdir ../good && cp -p * ../good/ && "
				   "printf '\\377' | dd of=$1 bs=1 seek=200 conv=notrunc 2>/dev/null && "
				   "chown nobody $2 && chmod 0666 $3 && "
				   "for f in $(ls | tail -n +4); do ln -sf ../good/$f $f; done",
			       cache), 0);
	free(out);
	out = record_chain_cached(dir, cache);
	print_message("spoilt: %lu tables from the cache\n", from_cache(out));
	assert_int_equal(from_cache(out), 0);
	free(out);
	/* rebuilt in their place */
	out = record_chain_cached(dir, cache);
	assert_true(from_cache(out) >= 3);
	free(out);
	/* none: nothing read or written */
	out = record_chain_cached(dir, "none");
	assert_int_equal(from_cache(out), 0);
	assert_non_null(strstr(out, "read from the cache (none)"));
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* The value of "key: value" on the line of perf evlist -v about event. */
static void evlist_value(const char *evlist, const char *event, const char *key, char *value,
			 size_t len)
{
	const char *line = evlist, *k;
	char want[64];

	while (line && strncmp(line, event, strlen(event)))
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	assert_non_null(line);
	snprintf(want, sizeof(want), " %s: ", key);
	k = strstr(line, want);
	if (!k || (strchr(line, '\n') && k > strchr(line, '\n'))) {
		snprintf(value, len, "(none)");
		return;
	}
	k += strlen(want);
	snprintf(value, len, "%.*s", (int)strcspn(k, ",\n"), k);
}

static void test_dwarf_attrs_as_perf(void **state)
{
	static const char *const keys[] = { "sample_regs_user", "sample_stack_user",
					    "exclude_callchain_user" };
	static const char *const types[] = { "CALLCHAIN", "REGS_USER", "STACK_USER" };
	char *dir = tu_tempdir(), *out = NULL, *theirs = NULL, *ours = NULL, a[128], b[128];
	int rc;

	(void)state;
	tu_skip_unless_possible();
	rc = tu_sh(&out, "perf record -q -e cpu-clock --call-graph dwarf,4100 -a -F 99 -o %s/perf.data -- sleep 0.2 2>&1 && "
			 "%s record --call-graph dwarf,4100 -a -F 99 -o %s/rt -- sleep 0.2 2>&1",
		   dir, tu_ringtrace(), dir);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&theirs, "perf evlist -v -i %s/perf.data", dir), 0);
	assert_int_equal(tu_sh(&ours, "perf evlist -v -i %s/rt", dir), 0);
	print_message("perf:      %sringtrace: %s", theirs, ours);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		evlist_value(theirs, "cpu-clock", keys[i], a, sizeof(a));
		evlist_value(ours, "cpu-clock", keys[i], b, sizeof(b));
		assert_string_equal(b, a);
	}
	evlist_value(ours, "cpu-clock", "sample_stack_user", b, sizeof(b));
	assert_string_equal(b, "4104"); /* rounded up to a multiple of 8, as perf does */
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		evlist_value(theirs, "cpu-clock", "sample_type", a, sizeof(a));
		evlist_value(ours, "cpu-clock", "sample_type", b, sizeof(b));
		assert_non_null(strstr(a, types[i]));
		assert_non_null(strstr(b, types[i]));
	}
	/* the tracking event asks for the mappings of data too */
	evlist_value(theirs, "dummy:HG", "mmap_data", a, sizeof(a));
	evlist_value(ours, "dummy:HG", "mmap_data", b, sizeof(b));
	assert_string_equal(b, a);
	free(theirs);
	free(ours);
	tu_rmtree(dir);
	free(dir);
}

static void test_call_graph_option_errors(void **state)
{
	static const char *const bad[] = { "lbr", "dwarf,0", "dwarf,65536", "dwarf,x", "dwarfy" };
	char *out = NULL;

	(void)state;
	tu_skip_unless_possible();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tu_sh(&out, "%s record --call-graph %s -o /nonexistent/x -- true 2>&1",
				       tu_ringtrace(), bad[i]), 2);
		/* one line, naming the option */
		assert_non_null(strstr(out, "--call-graph"));
		assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
		free(out);
	}
}

/* --call-graph dwarf on Debian's gzip: unwound by libdw from stack copies. */
static void test_distro_program_through_libc(void **state)
{
	(void)state;
	gzip_through_libc("--call-graph dwarf");
}

/* perf's default ring sizes hold 8 KiB samples of both CPUs at 99 Hz. */
static void test_no_loss_at_99hz(void **state)
{
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL;
	unsigned long samples = 0, lost = 1;
	const char *line;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	rc = tu_sh(&out, "%s record --call-graph dwarf -a -F 99 -o %s/rt -- sh -c '%s chain 10 & %s chain 10; wait' 2>&1",
		   tu_ringtrace(), dir, prog, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	line = strstr(out, "ringtrace: recorded");
	assert_non_null(line);
	line = strstr(line, " into ");
	assert_non_null(line);
	line = strstr(line, ": ");
	assert_non_null(line);
	assert_int_equal(sscanf(line + 2, "%lu samples, %lu lost", &samples, &lost), 2);
	print_message("%s", strstr(out, "   cpu "));
	assert_int_equal(lost, 0);
	assert_true(samples > 99 * 2 * 9);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A JIT's code is named from its perf-PID.map after it exited and the map
 * was removed: from the recording's copy. */
static void test_jit_map_kept(void **state)
{
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL, *report = NULL, *script = NULL;
	const char *line;
	int rc, pid = 0;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	rc = tu_sh(&out, "%s record -F 999 -o %s/rt -- %s jit 1 2>&1", tu_ringtrace(), dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "cd %s/rt && ls perf-*.map | sed 's/[^0-9]//g'", dir), 0);
	pid = atoi(out);
	free(out);
	assert_true(pid > 0);
	assert_int_equal(tu_sh(&out, "rm -f /tmp/perf-%d.map", pid), 0);
	free(out);
	assert_int_equal(tu_sh(&report, "%s report %s/rt --comm unwindgen --sort sym", tu_ringtrace(), dir), 0);
	assert_int_equal(tu_sh(&script, "%s script %s/rt", tu_ringtrace(), dir), 0);
	tu_print_text(report);
	line = strstr(report, "[.] jit_spin_hot");
	assert_non_null(line);
	/* the percentage that opens its row */
	while (line > report && line[-1] != '\n')
		line--;
	assert_true(strtod(line, NULL) > 90.0);
	assert_non_null(strstr(script, "jit_spin_hot+0x"));
	free(report);
	free(script);
	tu_rmtree(dir);
	free(dir);
}

/* What a JIT's map costs the recording's disk is bounded: a map grown to
 * 200 MiB of holes (truncate) is kept with its holes (data of a few KiB; a
 * plain copy wrote 200 MiB of zeros), and with --copy-budget 4K a map holding
 * 12 KiB of data is refused, said in the totals, and not kept. */
static void test_jit_map_copies_bounded(void **state)
{
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL;
	unsigned long kib, size;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	rc = tu_sh(&out, "%s record -v -F 99 -o %s/sparse -- sh -c '%s jit 1 & p=$!; sleep 0.3; "
			 "truncate -s 200M /tmp/perf-$p.map; echo $p >%s/pid; wait $p' 2>&1; "
			 "rm -f /tmp/perf-$(cat %s/pid).map",
		   tu_ringtrace(), dir, prog, dir, dir);
	tu_print_text(out);
	if (rc || !strstr(out, "files kept in"))
		fail_msg("no map kept:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "cd %s/sparse && echo $(du -k perf-*.map) $(stat -c %%s perf-*.map)",
			       dir), 0);
	if (sscanf(out, "%lu %*s %lu", &kib, &size) != 2)
		fail_msg("no kept map: %s", out);
	print_message("the kept map: %lu bytes, %lu KiB of disk\n", size, kib);
	assert_int_equal(size, 200ul << 20);
	if (kib > 1024)
		fail_msg("the sparse map took %lu KiB of disk", kib);
	free(out);
	rc = tu_sh(&out, "%s record -F 99 --copy-budget 4K -o %s/over -- sh -c '%s jit 1 & p=$!; "
			 "sleep 0.3; head -c 9000 /dev/urandom | base64 >>/tmp/perf-$p.map; "
			 "echo $p >%s/pid; wait $p' 2>&1; rm -f /tmp/perf-$(cat %s/pid).map; "
			 "ls %s/over",
		   tu_ringtrace(), dir, prog, dir, dir, dir);
	tu_print_text(out);
	if (rc || !strstr(out, "1 refused over it") || strstr(out, ".map"))
		fail_msg("a map over --copy-budget 4K was not refused and counted:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

/* A JIT's map that is not one to copy (a FIFO, a symlink in its place, or
 * over 256 MiB) is refused, and the totals line says so without -v, as the
 * budget's refusals are said: "1 failed (not a regular file...", "1 too
 * large (a JIT's map over 256 MiB)"; none is kept. */
static void test_jit_map_refusals_counted(void **state)
{
	static const struct {
		const char *name, *plant, *said;
	} cases[] = {
		{ "fifo", "rm -f $m; mkfifo $m", "0 too large (a JIT's map over 256 MiB), 1 failed (" },
		{ "symlink", "rm -f $m; ln -s /etc/hostname $m", ", 1 failed (" },
		{ "large", "truncate -s 300M $m", "1 too large (a JIT's map over 256 MiB), 0 failed" },
	};
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rc = tu_sh(&out, "%s record -F 99 -o %s/%s -- sh -c '%s jit 1 & p=$!; sleep 0.3; "
				 "m=/tmp/perf-$p.map; %s; echo $p >%s/pid; wait $p' 2>&1; "
				 "rm -f /tmp/perf-$(cat %s/pid).map; ls %s/%s",
			   tu_ringtrace(), dir, cases[i].name, prog, cases[i].plant, dir, dir, dir,
			   cases[i].name);
		print_message("%s: %s", cases[i].name, out);
		if (rc || !strstr(out, "ringtrace: files kept in") || !strstr(out, cases[i].said) ||
		    strstr(out, ".map"))
			fail_msg("%s: the map was not refused and counted (\"%s\"):\n%s", cases[i].name,
				 cases[i].said, out);
		free(out);
	}
	tu_rmtree(dir);
	free(dir);
}

/* A stripped binary's names come from a local debuginfod server serving its
 * debug file, and only from there. */
static void test_debuginfod_names_stripped_binary(void **state)
{
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL, *id = NULL, *with = NULL,
				      *without = NULL;
	int port = 20000 + (int)(getpid() % 20000), up = 0, rc;
	pid_t server;

	(void)state;
	tu_skip_unless_possible();
	if (tu_sh(&out, "command -v debuginfod") != 0)
		tu_skip("no debuginfod server (Debian package debuginfod): run make deps");
	free(out);
	snprintf(prog, sizeof(prog), "%s/unwindgen_stripped", symgen_dir);
	assert_int_equal(tu_sh(&id, "readelf -n %s | sed -n 's/.*Build ID: //p' | tr -d '\\n'", prog), 0);
	assert_int_equal(strlen(id), 40);
	rc = tu_sh(&out, "%s record --call-graph dwarf -F 999 -o %s/rt -- %s chain 1 2>&1",
		   tu_ringtrace(), dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&out, "mkdir -p %s/srv %s/cache && cp %s.debug %s/srv/", dir, dir, prog, dir), 0);
	free(out);
	server = tu_start("exec debuginfod -F %s/srv -p %d -d %s/db.sqlite -t 0 -g 0 >%s/server.log 2>&1",
			  dir, port, dir, dir);
	for (int i = 0; i < 200 && !up && tu_running(server); i++) {
		up = tu_sh(&out, "curl -sf -o /dev/null http://127.0.0.1:%d/buildid/%s/debuginfo", port, id) == 0;
		free(out);
		if (!up)
			usleep(100 * 1000);
	}
	tu_sh(&without, "env -u DEBUGINFOD_URLS %s report %s/rt --folded 2>&1", tu_ringtrace(), dir);
	rc = tu_sh(&with, "DEBUGINFOD_URLS=http://127.0.0.1:%d DEBUGINFOD_CACHE_PATH=%s/cache "
			  "%s report %s/rt --folded 2>&1", port, dir, tu_ringtrace(), dir);
	kill(server, SIGTERM);
	tu_wait_gone(server, 10);
	waitpid(server, NULL, 0);
	assert_true(up);
	assert_int_equal(rc, 0);
	tu_print_text(with);
	assert_null(strstr(without, "uw_c"));
	assert_non_null(strstr(with, ";main;uw_a;uw_b;uw_c "));
	assert_non_null(strstr(with, "fetching the debug file of build-id"));
	free(with);
	free(without);
	free(id);
	tu_rmtree(dir);
	free(dir);
}

/* Garbage in the registers and stack copies (a stack being rewritten as it
 * was copied, a corrupt file) ends stacks early, never crashes the unwinder. */
static void test_garbage_stacks_end_early(void **state)
{
	char prog[PATH_MAX + 32], path[PATH_MAX], *dir = tu_tempdir(), *out = NULL;
	unsigned int corrupted = 0, seed = 17;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/unwindgen", symgen_dir);
	rc = tu_sh(&out, "%s record --call-graph dwarf,2048 -F 999 -o %s/rt -- %s chain 0.5 2>&1",
		   tu_ringtrace(), dir, prog);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	for (int cpu = 0; cpu < tu_online_cpus(); cpu++) {
		FILE *f;
		uint8_t *buf;
		long len;

		snprintf(path, sizeof(path), "%s/rt/data.cpu%d", dir, cpu);
		f = fopen(path, "r+b");
		if (!f)
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		buf = malloc((size_t)len + 1);
		assert_non_null(buf);
		rewind(f);
		assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
		for (long at = 0; at + 8 <= len;) {
			struct perf_event_header h;
			struct perf_sample s;

			memcpy(&h, buf + at, sizeof(h));
			if (h.size < 8 || at + h.size > len)
				break;
			/* the registers (the ip and sp among them) and the stack
			 * bytes, the sizes left as they are */
			if (h.type == PERF_RECORD_SAMPLE &&
			    !perf_sample_decode_regs((const void *)(buf + at), SAMPLE_TYPE_DWARF,
						     0xff0fff, &s) &&
			    s.regs_abi && s.stack_size) {
				uint8_t *regs = (uint8_t *)s.regs_user, *stack = (uint8_t *)s.stack_user;

				for (size_t i = 0; i < 20 * 8; i++)
					regs[i] ^= (uint8_t)(rand_r(&seed) & (corrupted % 3 ? 0xff : 0x0f));
				for (size_t i = 0; i < s.stack_size; i++)
					stack[i] ^= (uint8_t)rand_r(&seed);
				corrupted++;
			}
			at += h.size;
		}
		rewind(f);
		assert_int_equal(fwrite(buf, 1, (size_t)len, f), (size_t)len);
		fclose(f);
		free(buf);
	}
	assert_true(corrupted > 100);
	assert_int_equal(tu_sh(&out, "%s report %s/rt --folded >/dev/null && %s report %s/rt --children "
				     ">/dev/null && %s script %s/rt | grep -c unwindgen",
			       tu_ringtrace(), dir, tu_ringtrace(), dir, tu_ringtrace(), dir), 0);
	assert_true(atoi(out) > 100);
	free(out);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dwarf_unwinds_frameless_chain),
		cmocka_unit_test(test_dwarf_command_unwound_by_perf),
		cmocka_unit_test(test_ehframe_unwinds_frameless_chain),
		cmocka_unit_test(test_ehframe_reads_debug_frame),
		cmocka_unit_test(test_ehframe_return_address_in_a_register),
		cmocka_unit_test(test_ehframe_loader_start_is_outermost),
		cmocka_unit_test(test_ehframe_unwinds_running_process),
		cmocka_unit_test(test_ehframe_unwinds_child_forked_during_start),
		cmocka_unit_test(test_ehframe_unwinds_deep_stack),
		cmocka_unit_test(test_ehframe_unwinds_dlopened_library),
		cmocka_unit_test(test_ehframe_distro_program_through_libc),
		cmocka_unit_test(test_unwind_check_shallow),
		cmocka_unit_test(test_unwind_check_deep),
		cmocka_unit_test(test_unwind_check_deep_frame_pointers),
		cmocka_unit_test(test_unwind_check_cfa_register),
		cmocka_unit_test(test_unwind_check_dlopen),
		cmocka_unit_test(test_unwind_check_distro_program),
		cmocka_unit_test(test_unwind_check_full_steps),
		cmocka_unit_test(test_unwind_cache),
		cmocka_unit_test(test_dwarf_attrs_as_perf),
		cmocka_unit_test(test_garbage_stacks_end_early),
		cmocka_unit_test(test_call_graph_option_errors),
		cmocka_unit_test(test_distro_program_through_libc),
		cmocka_unit_test(test_no_loss_at_99hz),
		cmocka_unit_test(test_jit_map_kept),
		cmocka_unit_test(test_jit_map_copies_bounded),
		cmocka_unit_test(test_jit_map_refusals_counted),
		cmocka_unit_test(test_debuginfod_names_stripped_binary),
	};
	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
