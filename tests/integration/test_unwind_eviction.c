/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_eviction.c: -g's tables of files no process maps any more are
 * evicted when a new table needs their room: with --unwind-mem too small for
 * every table of a recording but large enough for those of each program
 * alive at once, every program's samples still reach libc's start as often
 * as with memory to spare, nothing goes without room, and the totals count
 * the evictions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Two programs one after the other: python3 (a table of ~65,000 rows on
 * Debian 12) exits before xz starts; they share the shell, libc and ld.so.
 * python3 runs ~0.8 s: its first tens of milliseconds, before its table is
 * loaded, weigh little (at 0.15 s they were a sixth of its ~150 samples, and
 * a sanitized run's slower start moved its share by more than the margin). */
#define PYTHON "/usr/bin/python3 -c \"sum(range(100000000))\""
#define XZ "xz -1 -c $W/data > /dev/null"

/* The workload of the warm-up: both programs, then (30 s at most) until the
 * cache holds the tables of python3, xz and liblzma, named by build-id. */
#define WAIT_FOR_CACHE                                                                        \
	"for f in $(readlink -f /usr/bin/python3) $(readlink -f $(command -v xz)) "           \
	"$(ldd $(command -v xz) | sed -n \"s/.*liblzma[^ ]* => \\([^ ]*\\).*/\\1/p\"); do " \
	"id=$(readelf -n $f | sed -n \"s/.*Build ID: //p\"); i=0; "                        \
	"while [ ! -e $W/cache/b-$id ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done; done"

/* What record's totals say of its tables. */
struct tables {
	unsigned long rows, evicted, without_room;
};

/* Records cmd (run by sh with W=work) with -g in mem of unwind rows, the
 * tables cached in work/cache: the totals into *t, the folded stacks
 * returned. */
static char *record(const char *work, const char *cmd, const char *mem, struct tables *t)
{
	char *out = NULL, *folded = NULL;
	const char *line;
	int rc;

	rc = tu_sh(&out, "export W=%s; %s record -g -F 999 -v --unwind-mem %s --unwind-cache %s/cache "
			 "--force -o %s/rec -- sh -c '%s' 2>&1",
		   work, tu_ringtrace(), mem, work, work, cmd);
	if (rc)
		fail_msg("record -- %s failed:\n%s", cmd, out);
	line = strstr(out, "ringtrace: unwind tables: ");
	if (!line || sscanf(line, "ringtrace: unwind tables: %*u files, %lu rows loaded (%*f MiB of %*f "
			    "in the map at the end), %lu evicted",
			    &t->rows, &t->evicted) != 2)
		fail_msg("no totals of the tables:\n%s", out);
	line = strstr(line, " without room (--unwind-mem)");
	assert_non_null(line);
	while (line[-1] != ' ')
		line--;
	t->without_room = strtoul(line, NULL, 10);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), work), 0);
	return folded;
}

static void test_tables_of_gone_programs_evicted(void **state)
{
	const char *work = *state;
	struct tables py, xz, both, tight;
	unsigned long most, py_n, xz_n;
	double py_spare, xz_spare, py_tight, xz_tight;
	char mem[32], *f;

	assert_int_equal(tu_sh(NULL, "head -c 8000000 /dev/urandom > %s/data", work), 0);
	/* the cache filled first, so that every recording below loads each
	 * table whole before its program ends: compiled on the spot, python3's
	 * may not be (a sanitized build under load took longer than python3
	 * ran, and the premises below measured a third of its rows) */
	free(record(work, PYTHON "; " XZ "; " WAIT_FOR_CACHE, "64M", &both));
	/* each program's tables alone, then both's, with memory to spare */
	free(record(work, PYTHON, "64M", &py));
	free(record(work, XZ, "64M", &xz));
	f = record(work, PYTHON "; " XZ, "64M", &both);
	py_spare = tu_folded_share(f, "python3", "__libc_start_call_main", &py_n);
	xz_spare = tu_folded_share(f, "xz", "__libc_start_call_main", &xz_n);
	free(f);
	most = py.rows > xz.rows ? py.rows : xz.rows;
	print_message("rows: python3's %lu, xz's %lu, both's %lu\n", py.rows, xz.rows, both.rows);
	/* the premise: xz's own files (xz, liblzma) take rows */
	assert_true(both.rows >= most + 1000);
	/* room for the larger program's tables and half of what the other
	 * adds: xz's fit once python3's are gone (17 bytes a row) */
	snprintf(mem, sizeof(mem), "%luK", (most + (both.rows - most) / 2) * 17 / 1024);
	f = record(work, PYTHON "; " XZ, mem, &tight);
	py_tight = tu_folded_share(f, "python3", "__libc_start_call_main", &py_n);
	assert_true(py_n >= 50);
	xz_tight = tu_folded_share(f, "xz", "__libc_start_call_main", &xz_n);
	assert_true(xz_n >= 200);
	free(f);
	print_message("--unwind-mem %s: %lu evicted, %lu without room; reaching libc's start: "
		      "python3 %.1f%% (%.1f%% with memory to spare), xz %.1f%% (%.1f%%)\n",
		      mem, tight.evicted, tight.without_room, py_tight, py_spare, xz_tight, xz_spare);
	assert_true(tight.evicted >= 1);
	assert_int_equal(tight.without_room, 0);
	assert_true(py_tight >= py_spare - 10);
	assert_true(xz_tight >= xz_spare - 5);
	assert_true(xz_tight >= 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables_of_gone_programs_evicted, tu_tempdir_setup, tu_tempdir_teardown),
	};
	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
