/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_losses.c: the end of a -g recording names the stacks the
 * unwinder's tables cost, in one plain line whose numbers are the -v totals'
 * (a tiny --unwind-mem, no stack copies: a Python program's stacks walked by
 * frame pointers where its files found no room; a program without CFI);
 * --unwind-mem's default
 * sized from the machine for -a (said by -v), the floor for a command, and
 * an --unwind-mem given kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/unwind_mem_default.h"
#include "test_util.h"

#define PYTHON_HOG "python3 -c 'import json, decimal\nx = 0\nfor i in range(3000000): x += i'"

/* The number of lines of out holding what. */
static unsigned int lines_with(const char *out, const char *what)
{
	unsigned int n = 0;

	for (const char *p = out; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The share the plain line gives: "P% of the user stacks (N of ALL)" or
 * "1 user stack of ALL (P%)"; false if line has neither. */
static bool line_share(const char *line, unsigned long *n, unsigned long *all, double *pct)
{
	if (sscanf(line, "ringtrace: %lf%% of the user stacks (%lu of %lu)", pct, n, all) == 3)
		return true;
	*n = 1;
	return sscanf(line, "ringtrace: 1 user stack of %lu (%lf%%)", all, pct) == 2;
}

static void test_tiny_unwind_mem_one_line(void **state)
{
	const char *dir = *state;
	unsigned long n, all, samples, no_table, pending, copied, walked, room_files, v_room;
	const char *at, *v;
	char *out = NULL, line[1024];
	double pct;
	int rc;

	tu_skip_unless_possible();
	/* 64 KiB: a few thousand rows, never the tables of python3 and its
	 * libraries; no copies: their stacks are walked by frame pointers */
	rc = tu_sh(&out, "cd %s && %s record -g -v --unwind-mem 64K --stack-copy-budget 0 -o tiny.data "
		   "-- " PYTHON_HOG " 2>&1 >/dev/null", dir, tu_ringtrace());
	if (rc)
		fail_msg("record failed (exit %d): %s", rc, out);
	tu_print_text(out);
	/* the one line: the share, why, the option and its value */
	if (lines_with(out, "found no room") != 1 || !(at = strstr(out, "found no room")))
		fail_msg("not one line saying files found no room: %s", out);
	while (at > out && at[-1] != '\n')
		at--;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
	if (!line_share(line, &n, &all, &pct))
		fail_msg("the line names no share of the user stacks: %.300s", line);
	if (!strstr(line, "raise --unwind-mem (now 64 KiB)"))
		fail_msg("the line names no --unwind-mem to raise: %.400s", line);
	if (sscanf(strstr(line, "cut short: ") + strlen("cut short: "), "%lu", &room_files) != 1)
		fail_msg("the line names no count of files without room: %.400s", line);
	assert_true(room_files == 1 ? !!strstr(line, "1 file found no room for its unwind table,")
				    : !!strstr(line, "files found no room for their unwind tables,"));
	/* the -v totals say the same */
	v = strstr(out, "ringtrace: user stacks: ");
	if (!v || sscanf(v, "ringtrace: user stacks: %lu", &samples) != 1)
		fail_msg("no -v line of the user stacks: %s", out);
	v = strstr(out, "ringtrace: user stacks that met a file without its table: ");
	if (!v || sscanf(v, "ringtrace: user stacks that met a file without its table: %lu with none "
			 "(walked by frame pointers there), %lu with one not loaded (%lu copied, %lu walked",
			 &no_table, &pending, &copied, &walked) != 4)
		fail_msg("no -v line of the stacks that met a file without its table: %s", out);
	v = strstr(out, "ringtrace: unwind tables: ");
	if (!v || !(v = strstr(v, " without room (--unwind-mem)")))
		fail_msg("no -v count of the files without room: %s", out);
	while (v[-1] >= '0' && v[-1] <= '9')
		v--;
	v_room = strtoul(v, NULL, 10);
	print_message("line: %lu of %lu (%.2f%%), %lu files; -v: %lu stacks, %lu walked of %lu "
		      "not loaded, %lu copied, %lu without room\n",
		      n, all, pct, room_files, samples, walked, pending, copied, v_room);
	assert_int_equal(all, samples);
	assert_int_equal(n, walked);
	assert_int_equal(walked, pending - copied);
	assert_int_equal(copied, 0); /* no copies */
	assert_int_equal(room_files, v_room);
	assert_true(n > 0 && n <= all);
	assert_true(pct > 100.0 * n / all - 0.1 && pct < 100.0 * n / all + 0.1);
	/* a line for stacks through files without any table only if 1% were */
	assert_int_equal(lines_with(out, "has no unwind table") != 0, no_table * 100 >= samples);
	free(out);
}

/* A program whose file has no CFI at all (loadgen, .eh_frame stripped): the
 * one line says its stacks met a file without a table, that no option helps,
 * and its numbers are -v's. */
static void test_file_without_cfi_one_line(void **state)
{
	const char *dir = *state, *at, *v;
	unsigned long n, all, samples, no_table;
	char *out = NULL, line[1024];
	double pct;
	int rc;

	tu_skip_unless_possible();
	rc = tu_sh(&out, "cd %s && objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "
		   "%s nocfi && ! readelf -S nocfi | grep -q eh_frame 2>&1", dir, tu_loadgen());
	if (rc)
		fail_msg("cannot strip loadgen's .eh_frame: %s", out);
	free(out);
	rc = tu_sh(&out, "cd %s && %s record -g -v --unwind-cache none -o nocfi.data -- ./nocfi spin 1 "
		   "2>&1 >/dev/null", dir, tu_ringtrace());
	if (rc)
		fail_msg("record failed (exit %d): %s", rc, out);
	if (lines_with(out, "may be cut short") != 1 || !(at = strstr(out, "has no unwind table")))
		fail_msg("not one line, saying a file has no unwind table: %s", out);
	while (at > out && at[-1] != '\n')
		at--;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(at, "\n"), at);
	if (!line_share(line, &n, &all, &pct) || !strstr(line, "no option changes that"))
		fail_msg("the line names no share, or an option to set: %s", line);
	v = strstr(out, "ringtrace: user stacks: ");
	if (!v || sscanf(v, "ringtrace: user stacks: %lu", &samples) != 1)
		fail_msg("no -v line of the user stacks: %s", out);
	v = strstr(out, "ringtrace: user stacks that met a file without its table: ");
	if (!v || sscanf(v, "ringtrace: user stacks that met a file without its table: %lu with none",
			 &no_table) != 1)
		fail_msg("no -v line of the stacks that met a file without its table: %s", out);
	if (!strstr(out, " files without a table (1 no CFI)"))
		fail_msg("-v does not count nocfi as a file without CFI: %s", out);
	print_message("line: %lu of %lu (%.1f%%); -v: %lu of %lu met a file with none\n", n, all,
		      pct, no_table, samples);
	assert_int_equal(n, no_table);
	assert_int_equal(all, samples);
	assert_true(n > 0);
	free(out);
}

/* -a: the default sized from the machine (-v says from what, and the map
 * has that room), beside 200 MiB more of code mapped; a command: the floor;
 * given: as given. */
static void test_default_sized(void **state)
{
	const char *dir = *state;
	double mem, code, map, want, ceiling;
	unsigned long files, procs, no_table;
	pid_t mapper;
	const char *v;
	char *out = NULL;
	int rc;

	tu_skip_unless_possible();
	/* 200 MiB more of code mapped (a sparse file, mapped executable by a
	 * process that sleeps): the default above the floor */
	rc = tu_sh(&out, "cd %s && truncate -s 200M code.bin", dir);
	assert_int_equal(rc, 0);
	free(out);
	mapper = tu_start("cd %s && exec python3 -c 'import mmap, os, time\n"
			  "f = os.open(\"code.bin\", os.O_RDONLY)\n"
			  "m = mmap.mmap(f, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC)\n"
			  "open(\"mapped\", \"w\").close()\n"
			  "time.sleep(60)'", dir);
	rc = tu_sh(&out, "cd %s && for i in $(seq 100); do test -e mapped && break; sleep 0.1; done; "
		   "test -e mapped && %s record -a -g -v -o all.data -- sleep 1 2>&1 >/dev/null", dir,
		   tu_ringtrace());
	tu_stop(mapper);
	if (rc)
		fail_msg("record -a -g beside a file of 200 MiB mapped executable failed (exit %d): %s",
			 rc, out);
	v = strstr(out, "ringtrace: unwind tables' memory: ");
	if (!v || sscanf(v, "ringtrace: unwind tables' memory: --unwind-mem %lf MiB, its default, "
			 "sized from %lf MiB of code in %lu files mapped by %lu processes",
			 &mem, &code, &files, &procs) != 4)
		fail_msg("-v does not say what --unwind-mem's default was sized from: %s", out);
	print_message("--unwind-mem %.1f MiB from %.1f MiB of code, %lu files, %lu processes\n", mem,
		      code, files, procs);
	assert_true(files > 1 && procs > 1 && code > 200);
	assert_true(mem > 200);
	assert_true(mem >= (double)(UNWIND_MEM_FLOOR >> 20));
	/* a row of 17 bytes for every 16 of code, a whole MiB (the code's MiB
	 * are rounded to a tenth), unless the floor or a sixteenth of RAM */
	want = code * 17 / 16;
	ceiling = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) /
		  UNWIND_MEM_RAM_SHARE / (1 << 20);
	if (want > ceiling)
		want = ceiling;
	if (want < (double)(UNWIND_MEM_FLOOR >> 20))
		want = (double)(UNWIND_MEM_FLOOR >> 20);
	if (mem < want - 0.2 || mem > want + 1.2)
		fail_msg("--unwind-mem %.1f MiB, not that of %.1f MiB of code (%.1f MiB, within "
			 "%d and %.1f MiB)", mem, code, want, (int)(UNWIND_MEM_FLOOR >> 20), ceiling);
	v = strstr(out, "ringtrace: unwind tables: ");
	if (!v || !(v = strstr(v, " MiB of ")) || sscanf(v, " MiB of %lf in the map", &map) != 1)
		fail_msg("no -v size of the map: %s", out);
	assert_true(map > mem - 0.1 && map < mem + 0.1);
	/* that file has no table (not ELF), but no stack met it: no line */
	v = strstr(out, "ringtrace: unwind tables: ");
	assert_non_null(v = strstr(v, " files without a table"));
	while (v[-1] >= '0' && v[-1] <= '9')
		v--;
	assert_true(strtoul(v, NULL, 10) >= 1);
	v = strstr(out, "ringtrace: user stacks that met a file without its table: ");
	if (!v || sscanf(v, "ringtrace: user stacks that met a file without its table: %lu with none",
			 &no_table) != 1)
		fail_msg("no -v line of the stacks that met a file without its table: %s", out);
	assert_int_equal(lines_with(out, "has no unwind table") != 0, no_table != 0);
	free(out);

	rc = tu_sh(&out, "cd %s && %s record -g -v -o cmd.data -- true 2>&1 >/dev/null", dir,
		   tu_ringtrace());
	if (rc || !strstr(out, "ringtrace: unwind tables' memory: --unwind-mem 64.0 MiB\n"))
		fail_msg("a command's recording is not given the floor, 64 MiB (exit %d): %s", rc, out);
	free(out);
	rc = tu_sh(&out, "cd %s && %s record -a -g -v --unwind-mem 100M -o given.data -- true "
		   "2>&1 >/dev/null", dir, tu_ringtrace());
	if (rc || !strstr(out, "ringtrace: unwind tables' memory: --unwind-mem 100.0 MiB\n"))
		fail_msg("--unwind-mem 100M given is not kept (exit %d): %s", rc, out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tiny_unwind_mem_one_line, tu_tempdir_setup,
						tu_tempdir_teardown),
		cmocka_unit_test_setup_teardown(test_file_without_cfi_one_line, tu_tempdir_setup,
						tu_tempdir_teardown),
		cmocka_unit_test_setup_teardown(test_default_sized, tu_tempdir_setup,
						tu_tempdir_teardown),
	};
	const char *why = tu_integration_skip_reason();

	if (!why && system("command -v python3 objcopy readelf truncate >/dev/null"))
		why = "python3, objcopy, readelf or truncate is missing (make test-deps and "
		      "build-deps install them)";
	tu_set_skip_reason(why);
	return cmocka_run_group_tests(tests, NULL, tu_stop_left);
}
