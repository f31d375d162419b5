/* SPDX-License-Identifier: GPL-2.0-only */
/* test_spelling.c: "did you mean": edit distances, and the nearest name only
 * when it is near enough for the word's length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lib/spelling.h"

static void test_distances(void **state)
{
	(void)state;
	assert_int_equal(spelling_distance("", ""), 0);
	assert_int_equal(spelling_distance("force", "force"), 0);
	assert_int_equal(spelling_distance("forc", "force"), 1);          /* insertion */
	assert_int_equal(spelling_distance("forcee", "force"), 1);        /* deletion */
	assert_int_equal(spelling_distance("forse", "force"), 1);         /* substitution */
	assert_int_equal(spelling_distance("froce", "force"), 1);         /* neighbours swapped */
	assert_int_equal(spelling_distance("kitten", "sitting"), 3);
	assert_int_equal(spelling_distance("", "abc"), 3);
}

static const char *nearest(const char *word)
{
	static const char *const names[] = { "percent-limit", "pid", "cpu", "cpu-clock",
					     "task-clock", "sched:sched_switch" };
	static struct spelling s;

	spelling_init(&s, word);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		spelling_offer(&s, names[i]);
	return spelling_best(&s);
}

static void test_nearest_when_near(void **state)
{
	(void)state;
	assert_string_equal(nearest("percnt-limit"), "percent-limit");
	assert_string_equal(nearest("cpu-clok"), "cpu-clock");
	assert_string_equal(nearest("sched:sched_swich"), "sched:sched_switch");
	assert_string_equal(nearest("pdi"), "pid");
	/* an exact name is no mistake; a far one has no suggestion */
	assert_null(nearest("cpu"));
	assert_null(nearest("xyz"));
	assert_null(nearest("nothing-like-any-of-them"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distances),
		cmocka_unit_test(test_nearest_when_near),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
