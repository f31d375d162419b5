/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_sampled.c: -g --unwind-tables sampled compiles the tables of
 * the files walks meet, not of every file mapped: a program that maps 20
 * copies of a library and never runs them gets none of their tables (where
 * the default compiles all 20), its stacks reach its thread's start as often
 * as with every table, and the copies' entries are forgotten once no process
 * maps them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Copies of a library the workload maps executable and never calls. */
#define COPIES 20

/* What record's totals say of its tables. */
struct tables {
	unsigned long files, rows;
	/* --unwind-tables sampled */
	unsigned long deferred, wanted, gone, pruned;
};

/* Records (in work) loadgen mapping the copies and spinning 2 s, then 2.5 s of sleep
 * (time for the copies' entries to be forgotten: two prunes a second apart), with -g and
 * --unwind-tables when; the totals into *t, the folded stacks returned. */
static char *record(const char *work, const char *when, struct tables *t)
{
	char *out = NULL, *folded = NULL;
	const char *line;
	int rc;

	rc = tu_sh(&out, "cd %s && %s record -g -F 499 -v --unwind-tables %s --unwind-cache %s/cache "
			 "--force -o %s/rec -- sh -c '%s map-exec 2 copy*.so; sleep 2.5' 2>&1",
		   work, tu_ringtrace(), when, work, work, tu_loadgen());
	if (rc) {
		print_message("%s\n", out);
		fail_msg("record --unwind-tables %s failed (%d), its log above", when, rc);
	}
	memset(t, 0, sizeof(*t));
	line = strstr(out, "ringtrace: unwind tables: ");
	if (!line || sscanf(line, "ringtrace: unwind tables: %lu files, %lu rows loaded", &t->files,
			    &t->rows) != 2)
		fail_msg("no totals of the tables:\n%s", out);
	line = strstr(out, "ringtrace: unwind tables on demand (--unwind-tables sampled): ");
	if (!strcmp(when, "sampled") &&
	    (!line || sscanf(line, "ringtrace: unwind tables on demand (--unwind-tables sampled): "
				   "%lu files mapped left uncompiled, %lu compiled once a walk met "
				   "them, %lu met but gone (no longer mapped); %lu files forgotten",
			     &t->deferred, &t->wanted, &t->gone, &t->pruned) != 4))
		fail_msg("no totals of the tables on demand:\n%s", out);
	if (strcmp(when, "sampled") && line)
		fail_msg("totals of tables on demand, not asked for:\n%s", out);
	free(out);
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), work), 0);
	return folded;
}

static void test_tables_of_files_walks_meet(void **state)
{
	const char *work = *state;
	struct tables mapped, sampled;
	unsigned long mapped_n, sampled_n;
	double mapped_share, sampled_share;
	char *f;

	/* the copies: liblzma's (a table of a few thousand rows), each with a
	 * build-id of its own, so that none is another's in the cache */
	assert_int_equal(tu_sh(NULL, "lib=$(ldd $(command -v xz) | sed -n 's/.*liblzma[^ ]* => "
				     "\\([^ ]*\\).*/\\1/p'); test -f \"$lib\" && for i in $(seq %d); "
				     "do cp \"$lib\" %s/copy$i.so || exit 1; done",
			       COPIES, work),
			 0);
	for (int i = 1; i <= COPIES; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/copy%d.so", work, i);
		tu_unique_build_id(path);
	}
	f = record(work, "mapped", &mapped);
	mapped_share = tu_folded_share(f, "loadgen", "clone3", &mapped_n);
	free(f);
	f = record(work, "sampled", &sampled);
	sampled_share = tu_folded_share(f, "loadgen", "clone3", &sampled_n);
	free(f);
	print_message("mapped: %lu files, %lu rows; sampled: %lu files, %lu rows, %lu left "
		      "uncompiled, %lu compiled once met, %lu gone, %lu forgotten; reaching clone3: %.1f%% of %lu (mapped), %.1f%% of %lu (sampled)\n",
		      mapped.files, mapped.rows, sampled.files, sampled.rows, sampled.deferred,
		      sampled.wanted, sampled.gone, sampled.pruned, mapped_share, mapped_n,
		      sampled_share, sampled_n);
	/* the premise: by default every copy's table is loaded */
	assert_true(mapped.files >= COPIES);
	/* sampled: the copies and what else only maps are left, the few
	 * files loadgen runs in compiled (loadgen, libc, ld.so) */
	assert_true(sampled.deferred >= COPIES);
	assert_true(sampled.wanted >= 1 && sampled.wanted <= 6);
	assert_true(sampled.rows < mapped.rows / 2);
	/* loadgen gone, no process maps the copies: forgotten */
	assert_true(sampled.pruned >= COPIES);
	/* and the stacks as whole as with every table */
	assert_true(mapped_n >= 50 && sampled_n >= 50);
	assert_true(sampled_share >= mapped_share - 5);
	assert_true(sampled_share >= 90);
}

/* A binary and a library deleted while mapped: the binary, which samples
 * met, is copied and its frames named; the library, never run, is not. */
static void test_unmet_deleted_library_not_copied(void **state)
{
	const char *work = *state;
	unsigned long held, copied, not_met, all;
	char *out = NULL, *folded = NULL, path[4096];
	const char *line;
	double share;

	assert_int_equal(tu_sh(NULL, "cp %s %s/lg && lib=$(ldd $(command -v xz) | sed -n "
				     "'s/.*liblzma[^ ]* => \\([^ ]*\\).*/\\1/p') && cp \"$lib\" %s/lib.so",
			       tu_loadgen(), work, work),
			 0);
	snprintf(path, sizeof(path), "%s/lg", work);
	tu_unique_build_id(path);
	snprintf(path, sizeof(path), "%s/lib.so", work);
	tu_unique_build_id(path);
	if (tu_sh(&out, "cd %s && %s record -g -F 499 -v --unwind-tables sampled -o rec -- sh -c "
			"'./lg map-exec 1 ./lib.so & sleep 0.4; rm lg lib.so; wait' 2>&1",
		  work, tu_ringtrace())) {
		print_message("%s\n", out);
		fail_msg("record failed, its log above");
	}
	line = strstr(out, "ringtrace: mapped files held open until unlinked");
	if (!line || sscanf(line, "ringtrace: mapped files held open until unlinked (%*u at once): "
				  "%lu, %lu copied", &held, &copied) != 2 ||
	    !(line = strstr(line, " over 256 MiB (or the budget), ")) ||
	    sscanf(line, " over 256 MiB (or the budget), %lu met by no sample", &not_met) != 1)
		fail_msg("no totals of the files held:\n%s", out);
	print_message("held %lu, copied %lu, not copied (met by no sample) %lu\n", held, copied,
		      not_met);
	/* (others of the machine's may be deleted meanwhile: at least ours) */
	assert_true(copied >= 1);
	assert_true(not_met >= 1);
	assert_int_equal(tu_sh(NULL, "ls %s/rec/.build-id/*/* > /dev/null", work), 0);
	/* the binary's frames named from its copy */
	assert_int_equal(tu_sh(&folded, "%s report %s/rec --folded", tu_ringtrace(), work), 0);
	share = tu_folded_share(folded, "lg", "loadgen_hot_loop", &all);
	print_message("lg: %.1f%% of %lu samples in loadgen_hot_loop\n", share, all);
	assert_true(all >= 30 && share >= 90);
	free(folded);
	free(out);
}

/* Bad input: one line naming the choices, exit status 2. */
static void test_unknown_choice_refused(void **state)
{
	const char *work = *state;
	char *out = NULL;

	assert_int_equal(tu_sh(&out, "%s record -g --unwind-tables often -o %s/bad -- true 2>&1",
			       tu_ringtrace(), work),
			 2);
	assert_non_null(strstr(out, "--unwind-tables takes mapped or sampled, not 'often'"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables_of_files_walks_meet, tu_tempdir_setup, tu_tempdir_teardown),
		cmocka_unit_test_setup_teardown(test_unmet_deleted_library_not_copied,
						tu_tempdir_setup, tu_tempdir_teardown),
		cmocka_unit_test_setup_teardown(test_unknown_choice_refused, tu_tempdir_setup, tu_tempdir_teardown),
	};
	tu_set_skip_reason(tu_integration_skip_reason());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
