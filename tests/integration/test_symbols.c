/* SPDX-License-Identifier: GPL-2.0-only */
/* test_symbols.c: symbols people can trust, with real recordings of programs
 * that exited before the report: a demangled C++ name, a stripped binary's
 * .dynsym name, build-ids in the MMAP2 records, and no symbols from a binary
 * replaced after the recording. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char symgen_dir[PATH_MAX];

/* Records prog for a second, system-wide with callchains; the process has
 * exited when this returns. */
static char *record_program(const char *prog)
{
	char *dir = tu_tempdir(), *out = NULL;
	int rc = tu_sh(&out, "%s record -a -g -F 999 --force -o %s -- %s 1 2>&1", tu_ringtrace(), dir,
		       prog);

	if (rc)
		fail_msg("record failed:\n%s", out);
	free(out);
	return dir;
}

/* The symbol of the top row of "report --comm COMM --sort sym". */
static void top_symbol(const char *dir, const char *comm, char *sym, size_t len, double *pct)
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
		return;
	}
	fail_msg("no rows for %s:\n%s", comm, out);
}

static void test_cxx_names_are_demangled(void **state)
{
	char prog[PATH_MAX + 32], sym[512], *dir;
	double pct;

	(void)state;
	tu_skip_unless_possible();
	snprintf(prog, sizeof(prog), "%s/symgen_cxx", symgen_dir);
	dir = record_program(prog);
	top_symbol(dir, "symgen_cxx", sym, sizeof(sym), &pct);
	print_message("top: %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "ringtrace_test::Spinner::spin"); /* perf's form */
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
	dir = record_program(prog);
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

/* A binary replaced after the recording: its samples show [unknown] with the
 * file's name, never the new binary's symbols. */
static void test_build_ids_and_replaced_binary(void **state)
{
	char *work, *dir, *out = NULL, prog[PATH_MAX + 32], hex[64] = { 0 }, sym[512];
	double pct;

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
	dir = record_program(prog);
	assert_true(mmap2_has_build_id(dir, prog, hex));
	top_symbol(dir, "symgen_copy", sym, sizeof(sym), &pct);
	assert_string_equal(sym, "symgen_exported_spin");
	/* now another program at that path */
	assert_int_equal(tu_sh(&out, "cp %s/symgen_cxx %s", symgen_dir, prog), 0);
	free(out);
	top_symbol(dir, "symgen_copy", sym, sizeof(sym), &pct);
	print_message("after replacing the binary: top %s %.2f%%\n", sym, pct);
	assert_string_equal(sym, "[unknown]");
	assert_int_equal(tu_sh(&out, "%s report %s --comm symgen_copy --sort dso", tu_ringtrace(), dir), 0);
	assert_non_null(strstr(out, "symgen_copy"));
	free(out);
	tu_rmtree(dir);
	free(dir);
	tu_rmtree(work);
	free(work);
}

/* A binary only a container sees (a tmpfs mounted in another mount namespace
 * over a directory that is empty outside it): the recording keeps a copy by
 * build-id, and report resolves its symbols after the container is gone. */
static void test_container_binary_kept(void **state)
{
	char *work, *dir, *out = NULL, sym[512];
	double pct;

	(void)state;
	tu_skip_unless_possible();
	work = tu_tempdir();
	assert_int_equal(tu_sh(&out, "mkdir %s/ct && (unshare -m --propagation private sh -c "
				     "'mount -t tmpfs none %s/ct && cp %s/symgen_stripped %s/ct/contained && exec %s/ct/contained 3' "
				     ">/dev/null 2>&1 &) && sleep 0.5 && ls %s/ct | wc -l",
			       work, work, symgen_dir, work, work, work),
			 0);
	/* outside the namespace the directory is empty */
	assert_int_equal(atoi(out), 0);
	free(out);
	dir = record_program("sleep");
	assert_int_equal(tu_sh(&out, "pkill -f '^%s/ct/contained'; sleep 0.2; find %s/.build-id -type f -perm 0600 | wc -l",
			       work, dir),
			 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_binary_kept),
		cmocka_unit_test(test_cxx_names_are_demangled),
		cmocka_unit_test(test_stripped_binary_uses_dynsym),
		cmocka_unit_test(test_build_ids_and_replaced_binary),
	};
	const char *d = getenv("SYMGEN_DIR");

	const char *why = tu_integration_skip_reason();

	if (!why && !d)
		why = "SYMGEN_DIR is not set (run through make test)";
	tu_set_skip_reason(why);
	snprintf(symgen_dir, sizeof(symgen_dir), "%s", d ? d : "");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
