/* SPDX-License-Identifier: GPL-2.0-only */
/* test_symbols.c: symbols people can trust, with real recordings of programs
 * that exited before the report: named as perf names them on the same
 * recording (PLT entries, aliases, versioned names, ld.so's labels, the vdso,
 * the kernel, demangled C++), a stripped binary's .dynsym name, build-ids in
 * the MMAP2 records, and no symbols from a binary replaced after the recording. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/kallsyms.h"
#include "symbols/symbols.h"
#include "test_util.h"

static char symgen_dir[PATH_MAX];

/* Whether process pid maps a file whose path ends in suffix. */
static bool maps_have(pid_t pid, const char *suffix)
{
	char path[64], line[4096];
	size_t n = strlen(suffix);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		found = len >= n && !strncmp(line + len - n, suffix, n);
	}
	if (f)
		fclose(f);
	return found;
}

/* Records prog (its argument: seconds to run) for a second, by pid, with
 * callchains; the process has exited when this returns. It runs already, in
 * its main loop, when the recording starts: its COMM and MMAP2 records are
 * those the recording writes of /proc at its start, not the kernel's of its
 * exec, which come through a side-band ring that holds every process's
 * execs and mappings, not the recorded ones alone (issue #55): beside an
 * exec storm a system-wide recording of the command lost them, and the
 * program's samples had no name (the check then found no rows). In main
 * means ld.so has mapped every library: it takes a few milliseconds of CPU
 * time, 50 ms are main's loop. The program is asked for 30 s (however long
 * a loaded machine takes to start the recording), killed once recorded. */
static char *record_running_program(const char *prog)
{
	char *dir = tu_tempdir(), *out = NULL;
	pid_t pid = tu_start("exec %s 30", prog);
	int rc;

	for (int i = 0; i < 1000 && tu_running(pid) && !(tu_process_cpu_seconds(pid) >= 0.05 &&
							 maps_have(pid, "/libc.so.6"));
	     i++)
		usleep(10000);
	if (!tu_running(pid))
		fail_msg("%s ended before it was recorded", prog);
	rc = tu_sh(&out, "%s record -g --stack-copy-budget 0 -F 999 --force -o %s -p %d -- sleep 1 2>&1",
		   tu_ringtrace(), dir, (int)pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	return dir;
}

/* Records prog's run of a second with callchains, scope "" (the command
 * itself, record -- prog: its COMM and MMAP2 records are the kernel's of its
 * exec) or "-a" (the machine); the process has exited when this returns.
 * These recordings, and record_running_program's, make no stack copies
 * (--stack-copy-budget 0): perf 6.1's libunwind unwinds a copy through a
 * library only in the first process it unwinds that library for, and the
 * names are compared with perf's; test_unwind_bounds compares the copies. */
static char *record_run(const char *scope, const char *prog)
{
	char *dir = tu_tempdir(), *out = NULL;
	int rc = tu_sh(&out, "%s record %s -g --stack-copy-budget 0 -F 999 --force -o %s -- %s 1 2>&1",
		       tu_ringtrace(), scope, dir, prog);

	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	return dir;
}

/* The symbol of the top row of "report --comm COMM --sort sym", and its
 * share; whether there is a row (none fails the test if must). */
static bool top_row(const char *dir, const char *comm, bool must, char *sym, size_t len,
		    double *pct)
{
	char *out = NULL, *line;
	int rc = tu_sh(&out, "%s report %s --comm %s --sort sym", tu_ringtrace(), dir, comm);

	assert_int_equal(rc, 0);
	for (line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *name;

		if (*line == '#' || *line == '\n')
			continue;
		*pct = strtod(line, NULL);
		name = strstr(line, "] ");
		assert_non_null(name);
		snprintf(sym, len, "%.*s", (int)strcspn(name + 2, "\n"), name + 2);
		free(out);
		return true;
	}
	if (must)
		fail_msg("no rows for %s:\n%s", comm, out);
	free(out);
	return false;
}

/* The symbol of the top row of "report --comm COMM --sort sym". */
static void top_symbol(const char *dir, const char *comm, char *sym, size_t len, double *pct)
{
	top_row(dir, comm, true, sym, len, pct);
}

static void test_cxx_names_are_demangled(void **state)
{
	char prog[PATH_MAX + 32], sym[512], *dir;
	double pct;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/symgen_cxx", symgen_dir);
	dir = record_running_program(prog);
	top_symbol(dir, "symgen_cxx", sym, sizeof(sym), &pct);
	print_message("top: %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "ringtrace_test::Spinner::spin");
	assert_true(pct > 50.0);
	tu_rmtree(dir);
	free(dir);
}

static void test_stripped_binary_uses_dynsym(void **state)
{
	char prog[PATH_MAX + 32], sym[512], *dir, *out = NULL;
	double pct;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/symgen_stripped", symgen_dir);
	/* really stripped: no .symtab */
	assert_int_equal(tu_sh(&out, "readelf -S %s | grep -c '\\.symtab' || true", prog), 0);
	assert_int_equal(atoi(out), 0);
	free(out);
	dir = record_running_program(prog);
	top_symbol(dir, "symgen_stripped", sym, sizeof(sym), &pct);
	print_message("top: %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "symgen_exported_spin");
	assert_true(pct > 50.0);
	tu_rmtree(dir);
	free(dir);
}

/* Every MMAP2 of the program, synthesized or the kernel's, names its file by
 * the build-id readelf reports. */
static bool mmap2_has_build_id(const char *dir, const char *path, const char *hex)
{
	const struct perf_event_header *rec;
	struct tu_records r;
	bool found = false;

	tu_records_open(&r, dir, 0);
	while (tu_records_next(&r, &rec)) {
		struct perf_mmap m;
		char got[41] = { 0 };

		if (rec->type != PERF_RECORD_MMAP2 ||
		    perf_mmap_decode(rec, r.in.sample_id_type, &m) || strcmp(m.filename, path))
			continue;
		assert_true(m.build_id_size > 0);
		for (int i = 0; i < m.build_id_size; i++)
			snprintf(got + 2 * i, 3, "%02x", m.build_id[i]);
		assert_string_equal(got, hex);
		found = true;
	}
	tu_records_close(&r);
	return found;
}

/* How many recordings of the command test_build_ids_and_replaced_binary
 * makes at most, while side-band records are lost in each. */
#define EXEC_RECORD_ATTEMPTS 4

/* A binary replaced after the recording: its samples show their addresses
 * (as perf shows an address without a symbol) with the file's name, never
 * the new binary's symbols. The program is the recorded command
 * (record -- prog): its MMAP2 is the kernel's of its exec (none is
 * synthesized: it did not run at the start), given its build-id by the
 * recording as it reads it, not when reporting. That record comes
 * through the side-band ring, which holds every process's execs and
 * mappings, not the command's alone (issue #55): beside an exec storm it
 * can overflow, and a recording that lost the program's COMM or MMAP2 says
 * so (PERF_RECORD_LOST of the tracking event). Such a recording is made
 * again, a few times at most; one that lost nothing must hold them, and any
 * MMAP2 of the program, in any recording, must carry its build-id. */
static void test_build_ids_and_replaced_binary(void **state)
{
	char *work, *dir, *out = NULL, prog[PATH_MAX + 32], hex[64] = { 0 }, sym[512];
	double pct;
	int attempt;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	snprintf(prog, sizeof(prog), "%s/symgen_copy", work);
	assert_int_equal(tu_sh(&out, "cp %s/symgen_stripped %s", symgen_dir, prog), 0);
	free(out);
	assert_int_equal(tu_sh(&out, "readelf -n %s | awk '/Build ID/ {print $3}'", prog), 0);
	snprintf(hex, sizeof(hex), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	assert_int_equal(strlen(hex), 40);
	for (attempt = 1;; attempt++) {
		struct tu_record_counts c;
		bool mmap2, named;

		dir = record_run("", prog);
		/* checked on every recording: a wrong build-id fails at once */
		mmap2 = mmap2_has_build_id(dir, prog, hex);
		named = top_row(dir, "symgen_copy", false, sym, sizeof(sym), &pct);
		if (mmap2 && named)
			break;
		tu_count_records(dir, 0, &c);
		if (!c.sideband_lost)
			fail_msg("no side-band record lost, yet %s", !mmap2 ? "no MMAP2 of the program"
									  : "no sample of its COMM");
		print_message("recording %d lost %" PRIu64 " side-band records (issue #55), the "
			      "program's %s with them: recorded again\n",
			      attempt, c.sideband_lost, !mmap2 ? "MMAP2" : "COMM");
		if (attempt == EXEC_RECORD_ATTEMPTS)
			fail_msg("the side-band lost records in each of %d recordings of the command",
				 attempt);
		tu_rmtree(dir);
		free(dir);
	}
	assert_string_equal(sym, "symgen_exported_spin");
	/* now another program at that path */
	assert_int_equal(tu_sh(&out, "cp %s/symgen_cxx %s", symgen_dir, prog), 0);
	free(out);
	top_symbol(dir, "symgen_copy", sym, sizeof(sym), &pct);
	print_message("after replacing the binary: top %s %.2f%%\n", sym, pct);
	/* every row of the file shows an address, none a symbol of the new binary */
	assert_int_equal(tu_sh(&out, "%s report %s --comm symgen_copy --sort dso,sym", tu_ringtrace(),
			       dir),
			 0);
	assert_non_null(strstr(out, "symgen_copy"));
	assert_null(strstr(out, "Spinner"));
	for (char *line = out; (line = strstr(line, " symgen_copy ")); line++) {
		const char *end = strchr(line, '\n'), *addr = strstr(line, "[.] 0x");

		assert_true(addr && (!end || addr < end));
	}
	free(out);
	tu_rmtree(dir);
	free(dir);
	tu_rmtree(work);
	free(work);
}

/* A binary only a container sees (a tmpfs mounted in another mount namespace
 * over a directory that is empty outside it): the recording keeps a copy by
 * build-id, and report resolves its symbols after the container is gone. It
 * spins until killed (20 s at most), whatever the recording's start takes (a
 * sanitized -g start on a loaded machine outlasted the 3 s it had). */
static void test_container_binary_kept(void **state)
{
	char *work, *dir, *out = NULL, sym[512];
	double pct;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	assert_int_equal(tu_sh(&out, "mkdir %s/ct && (unshare -m --propagation private sh -c "
				     "'mount -t tmpfs none %s/ct && cp %s/symgen_stripped %s/ct/contained && exec %s/ct/contained 20' "
				     ">/dev/null 2>&1 &) && sleep 0.5 && ls %s/ct | wc -l",
			       work, work, symgen_dir, work, work, work),
			 0);
	/* outside the namespace the directory is empty */
	assert_int_equal(atoi(out), 0);
	free(out);
	dir = record_run("-a", "sleep");
	assert_int_equal(tu_sh(&out, "pkill -f '^%s/ct/contained'; sleep 0.2; find %s/.build-id -type f -perm 0600 | wc -l",
			       work, dir),
			 0);
	assert_true(atoi(out) >= 1);
	free(out);
	top_symbol(dir, "contained", sym, sizeof(sym), &pct);
	print_message("the container's top symbol: %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "symgen_exported_spin");
	/* a recording --force puts in its place takes the namespace's copies
	 * away with the rest of the old one */
	assert_int_equal(tu_sh(&out, "%s record -a --force -o %s -- true >/dev/null 2>&1 && ls -a %s",
			       tu_ringtrace(), dir, dir),
			 0);
	if (strstr(out, ".build-id-ns"))
		fail_msg("the replaced recording's .build-id-ns was left behind:\n%s", out);
	free(out);
	tu_rmtree(dir);
	free(dir);
	tu_rmtree(work);
	free(work);
}

/* The same for a rootless container: an unprivileged user's namespaces (user
 * and mount), its binary a file the user owns. A copy of it under its
 * build-id for all would let the user name other binaries' frames (any file
 * can carry any build-id): it is kept for its mount namespace alone
 * (DIR/.build-id-ns/INODE/), which a NAMESPACES record gives for the
 * process, and report resolves its symbols from there. */
#define ROOTLESS_USER "ringtrace-test"

static void test_rootless_container_binary_kept(void **state)
{
	char *work, *dir, *out = NULL, sym[512];
	double pct;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	assert_int_equal(tu_sh(&out, "(id %s || useradd -M -r -s /usr/sbin/nologin %s) >/dev/null 2>&1 && "
				     "chmod 755 %s && mkdir -m 755 %s/ct && cp %s/symgen_stripped %s/prog && chmod 755 %s/prog",
			       ROOTLESS_USER, ROOTLESS_USER, work, work, symgen_dir, work, work),
			 0);
	free(out);
	/* a build-id of its own: no other process of the machine (another
	 * test's container) maps a file carrying it */
	{
		char prog[PATH_MAX + 16];

		snprintf(prog, sizeof(prog), "%s/prog", work);
		tu_unique_build_id(prog);
	}
	if (tu_sh(&out, "(runuser -u %s -- unshare -Urm --propagation private sh -c "
			"'mount -t tmpfs none %s/ct && cp %s/prog %s/ct/contained && exec %s/ct/contained 20' "
			">/dev/null 2>&1 &) && sleep 0.5 && pgrep -f '^%s/ct/contained' >/dev/null",
		  ROOTLESS_USER, work, work, work, work, work))
		fail_msg("the rootless container did not start (user namespaces refused?)");
	free(out);
	dir = record_run("-a", "sleep");
	assert_int_equal(tu_sh(&out, "pkill -f '^%s/ct/contained'; sleep 0.2; "
				     "id=$(readelf -n %s/prog | awk '/Build ID/ {print $3}'); "
				     "n=${id#??}; x=${id%%$n}; "
				     "echo $(ls %s/.build-id-ns/*/$x/$n 2>/dev/null | wc -l) "
				     "$(ls %s/.build-id/$x/$n 2>/dev/null | wc -l)",
			       work, work, dir, dir),
			 0);
	print_message("copies of the container's binary kept for its namespace, and for all: %s",
		      out);
	assert_int_equal(atoi(out), 1);
	assert_int_equal(atoi(strchr(out, ' ') + 1), 0);
	free(out);
	assert_int_equal(tu_sh(&out, "perf script -i %s --show-namespace-events 2>/dev/null | grep -c 'NAMESPACES'",
			       dir),
			 0);
	print_message("NAMESPACES records perf reads: %s", out);
	assert_true(atoi(out) >= 1);
	free(out);
	top_symbol(dir, "contained", sym, sizeof(sym), &pct);
	print_message("the container's top symbol: %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "symgen_exported_spin");
	tu_rmtree(dir);
	free(dir);
	tu_rmtree(work);
	free(work);
}

/*
 * Naming as perf names: the same recording read by ringtrace and by perf 6.1
 * gives the same rows in "report --sort sym" (perf report --stdio
 * --no-children --sort sym) and the same names for every frame of every
 * sample in "script" (perf script -F ip,sym).
 */

/* perf script prints at most this many frames of a callchain
 * (PERF_MAX_STACK_DEPTH); names are compared up to there. */
#define PERF_SCRIPT_MAX_FRAMES 127

struct strings {
	char **v;
	size_t nr, cap;
};

static void strings_add(struct strings *l, const char *s, size_t len)
{
	if (l->nr == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->nr] = strndup(s, len);
	assert_non_null(l->v[l->nr]);
	l->nr++;
}

static void strings_free(struct strings *l)
{
	for (size_t i = 0; i < l->nr; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool strings_has(const struct strings *l, const char *s)
{
	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The name in a frame line of script output: "\tIP NAME+0xOFF (DSO)" as
 * ringtrace prints it (with_dso), "\tIP NAME" as perf script -F ip,sym does. */
static void frame_name(const char *line, size_t len, bool with_dso, struct byte_buffer *out)
{
	const char *p = line, *end = line + len;

	while (p < end && (*p == '\t' || *p == ' '))
		p++;
	while (p < end && strchr("0123456789abcdef", *p))
		p++;
	if (p < end && *p == ' ')
		p++;
	if (with_dso) {
		const char *dso = end, *plus;

		for (const char *q = p; q + 1 < end; q++)
			if (q[0] == ' ' && q[1] == '(')
				dso = q;
		end = dso;
		plus = end;
		while (plus > p && strchr("0123456789abcdef", plus[-1]))
			plus--;
		if (plus - p >= 3 && plus < end && !strncmp(plus - 3, "+0x", 3))
			end = plus - 3;
	}
	while (end > p && end[-1] == ' ')
		end--;
	assert_non_null(byte_buffer_append(out, p, (size_t)(end - p)));
}

/* Each sample's frame names, "leaf;caller;...", in order: a sample's frames
 * are a run of lines that start with a tab. */
static void sample_names(const char *text, bool with_dso, struct strings *out)
{
	struct byte_buffer names = { 0 };
	unsigned int frames = 0;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");

		if (line[0] == '\t' && frames < PERF_SCRIPT_MAX_FRAMES) {
			if (frames++)
				assert_non_null(byte_buffer_append(&names, ";", 1));
			frame_name(line, len, with_dso, &names);
		} else if (line[0] != '\t' && frames) {
			strings_add(out, (const char *)names.data, names.len);
			names.len = 0;
			frames = 0;
		}
		line += len + (line[len] == '\n');
	}
	if (frames)
		strings_add(out, (const char *)names.data, names.len);
	byte_buffer_free(&names);
}

/* Every frame of every sample has the name perf gives it; perf's names of
 * dir's samples go to *perf_names if not NULL. */
static void expect_script_names(const char *dir, struct strings *perf_names)
{
	struct strings ours = { 0 }, theirs = { 0 };
	char *rt = NULL, *perf = NULL;
	size_t differ = 0, first = 0;

	assert_int_equal(tu_sh(&rt, "%s script %s 2>/dev/null", tu_ringtrace(), dir), 0);
	assert_int_equal(tu_sh(&perf, "perf script -i %s -F ip,sym 2>/dev/null", dir), 0);
	sample_names(rt, true, &ours);
	sample_names(perf, false, &theirs);
	free(rt);
	free(perf);
	if (ours.nr != theirs.nr)
		fail_msg("ringtrace script shows %zu samples, perf script %zu", ours.nr, theirs.nr);
	for (size_t i = 0; i < ours.nr; i++)
		if (strcmp(ours.v[i], theirs.v[i]) && !differ++)
			first = i;
	print_message("script: %zu samples, %zu named otherwise than by perf script\n", ours.nr,
		      differ);
	/* KEEP_SYNTH=DIR keeps a recording that differs, for a closer look */
	if (differ && getenv("KEEP_SYNTH")) {
		char *keep = NULL;

		tu_sh(&keep, "cp -r %s %s", dir, getenv("KEEP_SYNTH"));
		free(keep);
	}
	if (differ)
		fail_msg("sample %zu of %zu (and %zu more) differs:\n ringtrace: %s\n perf:      %s",
			 first, ours.nr, differ - 1, ours.v[first], theirs.v[first]);
	strings_free(&ours);
	if (perf_names)
		*perf_names = theirs;
	else
		strings_free(&theirs);
}

/* The kernel frames of dir's samples (ip, name, dso) as perf script shows
 * them: kernel addresses outside perf's map of the kernel have no dso. */
static void expect_kernel_dsos_as_perf(const char *dir)
{
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "cd %s && perf script -i . -F ip,sym,dso 2>/dev/null | "
				     "grep -E '^\\s+f{8}' >kernel.perf && %s script -F ip,sym,dso . | "
				     "grep -E '^\\s+f{8}' >kernel.rt; wc -l <kernel.rt; "
				     "diff kernel.perf kernel.rt | head -5; rm -f kernel.perf kernel.rt",
			       dir, tu_ringtrace()), 0);
	print_message("kernel frames and their dsos: %s", out);
	if (strchr(out, '<') || strchr(out, '>'))
		fail_msg("kernel frames named otherwise than by perf script (< perf, > ringtrace):\n%s",
			 out);
	free(out);
}

/* The rows of a --sort sym report as "[x] NAME  PCT%", in its order; with_samples:
 * ringtrace's (a Samples column after Overhead). */
static void report_rows(const char *text, bool with_samples, struct strings *out)
{
	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *p = line, *pct, *end = line + len;
		char row[1024];

		line += len + (line[len] == '\n');
		while (p < end && *p == ' ')
			p++;
		if (p == end || *p == '#')
			continue;
		pct = p;
		p += strcspn(p, "%");
		if (p >= end)
			continue;
		int pct_len = (int)(p - pct);

		p++;
		while (p < end && *p == ' ')
			p++;
		if (with_samples) {
			p += strspn(p, "0123456789");
			while (p < end && *p == ' ')
				p++;
		}
		while (end > p && end[-1] == ' ')
			end--;
		snprintf(row, sizeof(row), "%.*s  %.*s%%", (int)(end - p), p, pct_len, pct);
		strings_add(out, row, strlen(row));
	}
}

/* The same rows with the same percentages as perf report; both reports'
 * rows go to *rt_rows and *perf_rows in their order. */
static void expect_report_rows(const char *dir, struct strings *rt_rows, struct strings *perf_rows)
{
	struct strings a = { 0 }, b = { 0 };
	char *rt = NULL, *perf = NULL, *diff = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(tu_sh(&rt, "%s report %s --sort sym 2>/dev/null", tu_ringtrace(), dir), 0);
	assert_int_equal(tu_sh(&perf,
			       "perf report -i %s --stdio --no-children --sort sym -g none 2>/dev/null",
			       dir),
			 0);
	report_rows(rt, true, rt_rows);
	report_rows(perf, false, perf_rows);
	free(rt);
	free(perf);
	for (size_t i = 0; i < rt_rows->nr; i++)
		strings_add(&a, rt_rows->v[i], strlen(rt_rows->v[i]));
	for (size_t i = 0; i < perf_rows->nr; i++)
		strings_add(&b, perf_rows->v[i], strlen(perf_rows->v[i]));
	/* rows of equal overhead come in either order */
	qsort(a.v, a.nr, sizeof(*a.v), compare_strings);
	qsort(b.v, b.nr, sizeof(*b.v), compare_strings);
	f = open_memstream(&diff, &len);
	assert_non_null(f);
	for (size_t i = 0, j = 0; i < a.nr || j < b.nr;) {
		int c = i == a.nr ? 1 : j == b.nr ? -1 : strcmp(a.v[i], b.v[j]);

		if (c < 0)
			fprintf(f, "  ringtrace only: %s\n", a.v[i++]);
		else if (c > 0)
			fprintf(f, "  perf only:      %s\n", b.v[j++]);
		else
			i++, j++;
	}
	fclose(f);
	print_message("report: %zu rows, perf report %zu rows\n", a.nr, b.nr);
	if (len)
		fail_msg("report --sort sym differs from perf report:\n%s", diff);
	free(diff);
	strings_free(&a);
	strings_free(&b);
}

static bool rows_have(const struct strings *rows, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < rows->nr; i++)
		if (!strncmp(rows->v[i], name, n) && !strncmp(rows->v[i] + n, "  ", 2))
			return true;
	return false;
}

/* The executable mapping of this process whose path ends in suffix. */
static bool own_mapping(const char *suffix, struct perf_mmap *m, char *path, size_t pathlen)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8];
		int at = 0;
		size_t n;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %*u %n", &start, &end, perms, &pgoff,
			   &at) < 4 || strcmp(perms, "r-xp"))
			continue;
		snprintf(path, pathlen, "%s", line + at);
		path[strcspn(path, "\n")] = '\0';
		n = strlen(path);
		if (n < strlen(suffix) || strcmp(path + n - strlen(suffix), suffix))
			continue;
		memset(m, 0, sizeof(*m));
		m->start = start;
		m->len = end - start;
		m->pgoff = pgoff;
		found = true;
	}
	fclose(f);
	return found;
}

/* Whether Debian's libc6-dbg is there: libm's debug file, by build-id. libm
 * is mapped into this process (dlopen) for the tests to find it. */
static bool have_libc_debug_symbols(void)
{
	struct perf_mmap m;
	char path[PATH_MAX], debug[PATH_MAX];
	uint8_t id[BUILD_ID_MAX];
	ssize_t len;
	int fd;

	if (!dlopen("libm.so.6", RTLD_NOW | RTLD_NODELETE))
		fail_msg("cannot load libm.so.6: %s", dlerror());
	if (!own_mapping("/libm.so.6", &m, path, sizeof(path)))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	len = build_id_read(fd, id);
	close(fd);
	if (len <= 0)
		return false;
	build_id_path(debug, sizeof(debug), "/usr/lib/debug/.build-id", id, (size_t)len, ".debug");
	return access(debug, R_OK) == 0;
}

/* How many of samples ("leaf;caller;..." each, as expect_script_names gives
 * perf's) have a frame named name. */
static size_t samples_with_frame(const struct strings *samples, const char *name)
{
	size_t n = strlen(name), with = 0;

	for (size_t i = 0; i < samples->nr; i++)
		for (const char *f = samples->v[i]; f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL)
			if (!strncmp(f, name, n) && (f[n] == ';' || !f[n])) {
				with++;
				break;
			}
	return with;
}

/* A recording of symgen_names, by pid as it runs: its time goes to libm
 * through the PLT, to brk/sbrk and to the vdso's clock_gettime. Both reports
 * show the same rows, and script the same frames, the names perf gives
 * those: PLT entries (sin@plt), __brk (not its weak alias brk),
 * exp@@GLIBC_2.29 (libm's debug .symtab), __vdso_clock_gettime, and the
 * addresses in the vdso no symbol holds, as perf shows them. Each name is
 * looked for where the workload puts tens of samples whatever the machine's
 * load (it runs for CPU time): the PLT, exp and the vdso as rows (leaves, a
 * few % each); __brk as a frame, in the user stack of the brk syscall's
 * kernel samples (about 1%), as it is a leaf in a sample or two at most
 * (0.07%: the time of brk is the kernel's). */
static void test_names_match_perf_report_and_script(void **state)
{
	struct strings rt_rows = { 0 }, perf_rows = { 0 }, perf_frames = { 0 };
	char prog[PATH_MAX + 32], *dir = tu_tempdir(), *out = NULL;
	pid_t pid;
	int rc;

	(void)state;
	tu_skip_unless_possible();
	if (!have_libc_debug_symbols())
		tu_skip("libc6-dbg is not installed (make deps installs it)");
	snprintf(prog, sizeof(prog), "%s/symgen_names", symgen_dir);
	/* symgen_names running, recorded by pid: its COMM and MMAP2 records
	 * are those the recording writes of /proc at its start, not the
	 * kernel's of its exec, which come through a side-band ring that holds
	 * every process's execs and mappings, not the command's alone (issue
	 * #55): beside an exec storm it lost them (both reports then showed
	 * bare addresses, no name to check). It ends as symgen_names exits,
	 * after 4 s of CPU time. No stack copies (record_run tells why). */
	pid = tu_start("exec %s 4", prog);
	for (int i = 0; i < 1000 && !(maps_have(pid, "/libm.so.6") && maps_have(pid, "/libc.so.6"));
	     i++)
		usleep(10000);
	rc = tu_sh(&out, "%s record -g --stack-copy-budget 0 -F 999 --force -o %s -p %d 2>&1",
		   tu_ringtrace(), dir, (int)pid);
	if (rc)
		fail_msg("record failed:\n%s", out);
	tu_print_text(out);
	free(out);
	assert_true(tu_wait_gone(pid, 10));
	expect_report_rows(dir, &rt_rows, &perf_rows);
	print_message("%-44s | %s\n", "ringtrace report --sort sym", "perf report --sort sym");
	for (size_t i = 0; i < 16 && (i < rt_rows.nr || i < perf_rows.nr); i++)
		print_message("%-44s | %s\n", i < rt_rows.nr ? rt_rows.v[i] : "",
			      i < perf_rows.nr ? perf_rows.v[i] : "");
	/* samples in PLT entries (symgen_names' or libm's own) */
	{
		bool plt = false;

		for (size_t i = 0; i < rt_rows.nr; i++)
			plt |= strstr(rt_rows.v[i], "@plt  ") != NULL;
		assert_true(plt);
	}
	assert_false(rows_have(&rt_rows, "[.] brk"));
	assert_true(rows_have(&rt_rows, "[.] exp@@GLIBC_2.29"));
	assert_true(rows_have(&rt_rows, "[.] __vdso_clock_gettime"));
	/* every frame as perf script names it, and sbrk's call into the
	 * syscall among them, named __brk by both, never brk */
	expect_script_names(dir, &perf_frames);
	print_message("samples with a frame __brk: %zu, brk: %zu\n",
		      samples_with_frame(&perf_frames, "__brk"),
		      samples_with_frame(&perf_frames, "brk"));
	assert_true(samples_with_frame(&perf_frames, "__brk") > 0);
	assert_int_equal(samples_with_frame(&perf_frames, "brk"), 0);
	strings_free(&perf_frames);
	strings_free(&rt_rows);
	strings_free(&perf_rows);
	tu_rmtree(dir);
	free(dir);
}

#define SYNTH_PID 4242
#define SYNTH_SAMPLE_TYPE                                                                    \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define SYNTH_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

struct synth {
	struct tu_recording r;
	uint64_t time;
	size_t samples;
};

/* A sample at ip, its one frame: a user or a kernel one. */
static void synth_sample(struct synth *sy, uint64_t ip, bool kernel)
{
	uint64_t chain[2] = { kernel ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER, ip };
	struct perf_sample s = { .misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
				 .ip = ip, .pid = SYNTH_PID, .tid = SYNTH_PID, .time = ++sy->time,
				 .period = 1000000, .nr_callchain = 2, .callchain = chain };

	tu_recording_sample(&sy->r, 0, &s);
	sy->samples++;
}

/* An MMAP2 of the file (or [vdso]) at m, named by its build-id. */
static void synth_mmap(struct synth *sy, struct perf_mmap *m, const char *path)
{
	int fd = path[0] == '/' ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint8_t id[BUILD_ID_MAX];
	ssize_t len = fd >= 0 ? build_id_read(fd, id) : 0;

	if (fd >= 0)
		close(fd);
	m->pid = m->tid = SYNTH_PID;
	m->prot = PROT_READ | PROT_EXEC;
	m->flags = MAP_PRIVATE;
	m->filename = path;
	if (len > 0) {
		m->build_id_size = (uint8_t)len;
		memcpy(m->build_id, id, (size_t)len);
	}
	assert_int_equal(perf_mmap2_encode(&sy->r.side, SYNTH_ID_TYPE, m, NULL), 0);
}

/* Samples over all of m's bytes (every step, with step odd so that they fall
 * at every alignment), and at the start and the next byte of every step-th
 * symbol of t (every one if step_syms is 1), whose addresses are ELF virtual
 * addresses of the file mapped at m. */
static void synth_cover(struct synth *sy, const struct perf_mmap *m, const struct symtab *t,
			uint64_t step, size_t step_syms)
{
	for (uint64_t off = 0; off < m->len; off += step)
		synth_sample(sy, m->start + off, false);
	for (size_t i = 0; t && i < t->nr; i += step_syms) {
		uint64_t vaddr = t->syms[i].start;

		for (size_t k = 0; k < t->nr_segments; k++) {
			const struct elf_segment *g = &t->segments[k];
			uint64_t off = vaddr - g->vaddr + g->offset;

			if (vaddr < g->vaddr || vaddr - g->vaddr >= g->size || off < m->pgoff ||
			    off - m->pgoff >= m->len - 1)
				continue;
			synth_sample(sy, m->start + off - m->pgoff, false);
			synth_sample(sy, m->start + off - m->pgoff + 1, false);
			break;
		}
	}
}

/* A file this process maps (suffix), covered by samples. */
static void synth_own_file(struct synth *sy, const char *suffix, char *path, size_t step_syms)
{
	struct perf_mmap m;
	struct symtab t;
	char err[512];

	if (!own_mapping(suffix, &m, path, PATH_MAX))
		fail_msg("this test maps no %s", suffix);
	synth_mmap(sy, &m, path);
	assert_int_equal(symtab_load_elf(&t, path, err, sizeof(err)), 0);
	synth_cover(sy, &m, &t, (m.len / 1500) | 1, step_syms);
	symtab_free(&t);
}

/*
 * A synthetic recording with samples everywhere in symgen_names' text (its
 * PLT byte by byte), in ld.so, libm and libc (every byte step and every
 * symbol), in the vdso and at kernel symbols: every one named as perf names
 * it, the names of the issue among them (sin@plt, _init over the PLT header,
 * _dl_start_user, __brk, mprotect, exp@@GLIBC_2.29, __vdso_clock_gettime).
 */
static void test_every_address_named_as_perf_names_it(void **state)
{
	static char ld[PATH_MAX], libm[PATH_MAX], libc[PATH_MAX], vdso[PATH_MAX];
	struct perf_comm comm = { .pid = SYNTH_PID, .tid = SYNTH_PID, .comm = "symnames" };
	struct perf_event_attr *attr;
	struct strings names = { 0 };
	struct synth sy = { .time = 1000 };
	struct perf_mmap m = { 0 };
	struct symtab t, k;
	char prog[PATH_MAX + 32], *dir, *out = NULL, err[512];
	unsigned long long off, vaddr, size, text;
	uint64_t k_end;

	(void)state;
	tu_skip_unless_possible();
	if (!have_libc_debug_symbols())
		tu_skip("libc6-dbg is not installed (make deps installs it)");
	snprintf(prog, sizeof(prog), "%s/symgen_names", symgen_dir);
	assert_int_equal(tu_sh(&out, "readelf -lW %s | awk '$1 == \"LOAD\" && / R E / "
				     "{ print $2, $3, $5 }'", prog), 0);
	assert_int_equal(sscanf(out, "%llx %llx %llx", &off, &vaddr, &size), 3);
	free(out);
	assert_int_equal(tu_sh(&out, "awk '$3 == \"_text\" { print $1 }' /proc/kallsyms"), 0);
	text = strtoull(out, NULL, 16);
	free(out);
	assert_true(text != 0);

	tu_recording_init(&sy.r, 1);
	attr = tu_recording_event(&sy.r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				  SYNTH_SAMPLE_TYPE, 0);
	attr->sample_period = 1000000;
	attr->exclude_guest = 1;
	assert_int_equal(perf_kernel_mmap_encode(&sy.r.side, SYNTH_ID_TYPE, text, NULL), 0);
	assert_int_equal(perf_comm_encode(&sy.r.side, SYNTH_ID_TYPE, &comm, NULL), 0);

	/* symgen_names where a PIE would be, its PLT and everything around it byte by byte */
	m.start = 0x555555554000ULL + (vaddr & ~0xfffULL);
	m.len = (size + (vaddr & 0xfff) + 0xfff) & ~0xfffULL;
	m.pgoff = off & ~0xfffULL;
	synth_mmap(&sy, &m, prog);
	assert_int_equal(symtab_load_elf(&t, prog, err, sizeof(err)), 0);
	for (uint64_t a = vaddr; a < vaddr + 0x200 && a < vaddr + size; a++)
		synth_sample(&sy, m.start + (a - (vaddr & ~0xfffULL)), false);
	synth_cover(&sy, &m, &t, 7, 1);
	symtab_free(&t);

	synth_own_file(&sy, "/ld-linux-x86-64.so.2", ld, 1);
	synth_own_file(&sy, "/libm.so.6", libm, 1);
	synth_own_file(&sy, "/libc.so.6", libc, 1);
	if (!own_mapping("[vdso]", &m, vdso, sizeof(vdso)))
		fail_msg("this process has no [vdso]");
	synth_mmap(&sy, &m, vdso);
	synth_cover(&sy, &m, NULL, 3, 1);

	/* the kernel: every 50th symbol of kallsyms, and the byte after it */
	assert_int_equal(symtab_load_kallsyms(&k, "/proc/kallsyms", err, sizeof(err)), 0);
	for (size_t i = 0; i < k.nr; i += 50) {
		synth_sample(&sy, k.syms[i].start, true);
		synth_sample(&sy, k.syms[i].start + 1, true);
	}
	k_end = k.kernel_end;
	symtab_free(&k);
	/* kernel addresses of no symbol: below _text, past the kernel's text,
	 * in the module area where no module is (a BPF program's JIT image
	 * freed since), the highest */
	synth_sample(&sy, text - 0x1000, true);
	synth_sample(&sy, 0xffffffffb0000000ULL, true);
	synth_sample(&sy, 0xffffffffc0025fc8ULL, true);
	synth_sample(&sy, 0xfffffffffffff000ULL, true);
	/* around the last kernel symbol's end */
	synth_sample(&sy, k_end - 1, true);
	synth_sample(&sy, k_end, true);

	dir = tu_tempdir();
	tu_recording_write(&sy.r, dir);
	tu_recording_free(&sy.r);
	print_message("%zu samples over symgen_names, ld.so, libm, libc, the vdso and the kernel\n",
		      sy.samples);
	expect_script_names(dir, &names);
	expect_kernel_dsos_as_perf(dir);
	{
		static const char *const expected[] = {
			"sin@plt", "exp@plt", "logf@plt", "_init", "_dl_start_user", "__brk",
			"mprotect", "exp@@GLIBC_2.29", "__vdso_clock_gettime",
		};

		for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
			if (!strings_has(&names, expected[i]))
				fail_msg("no sample is named %s", expected[i]);
	}
	strings_free(&names);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_binary_kept),
		cmocka_unit_test(test_rootless_container_binary_kept),
		cmocka_unit_test(test_cxx_names_are_demangled),
		cmocka_unit_test(test_stripped_binary_uses_dynsym),
		cmocka_unit_test(test_build_ids_and_replaced_binary),
		cmocka_unit_test(test_names_match_perf_report_and_script),
		cmocka_unit_test(test_every_address_named_as_perf_names_it),
	};

	tu_set_skip_reason(tu_symgen_skip_reason());
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", tu_symgen_dir());
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
