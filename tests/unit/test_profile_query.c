/* SPDX-License-Identifier: GPL-2.0-only */
/* test_profile_query.c: the query of GET /debug/pprof/profile: Go's default
 * and bounds for seconds=, the filters taken as given, and every malformed
 * value refused with one line naming the parameter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "export/profile_requests.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_defaults_and_values(void **state)
{
	struct profile_query q;
	char err[256] = "";

	(void)state;
	assert_int_equal(profile_query_parse(&q, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.seconds, PROFILE_DEFAULT_SECONDS);
	assert_int_equal(q.pid, -1);
	assert_string_equal(q.comm, "");
	assert_string_equal(q.cgroup, "");
	assert_string_equal(q.container, "");
	assert_int_equal(profile_query_parse(&q, "1", "4194304", "kworker/0:1H-kb", "/system.slice/x.service",
					     ID64, err, sizeof(err)), 0);
	assert_int_equal(q.seconds, 1);
	assert_int_equal(q.pid, 4194304);
	assert_string_equal(q.comm, "kworker/0:1H-kb");
	assert_string_equal(q.cgroup, "/system.slice/x.service");
	assert_string_equal(q.container, ID64);
	assert_int_equal(profile_query_parse(&q, "60", NULL, NULL, NULL, "0123456789ab", err,
					     sizeof(err)), 0);
	assert_int_equal(q.seconds, PROFILE_MAX_SECONDS);
	assert_string_equal(q.container, "0123456789ab");
}

static void test_malformed_values(void **state)
{
	static const struct {
		const char *seconds, *pid, *comm, *cgroup, *container, *named;
	} bad[] = {
		{ "0", NULL, NULL, NULL, NULL, "seconds=" },
		{ "61", NULL, NULL, NULL, NULL, "seconds=" },
		{ "", NULL, NULL, NULL, NULL, "seconds=" },
		{ "-1", NULL, NULL, NULL, NULL, "seconds=" },
		{ "1.5", NULL, NULL, NULL, NULL, "seconds=" },
		{ "abc", NULL, NULL, NULL, NULL, "seconds=" },
		{ "99999999999999999999999", NULL, NULL, NULL, NULL, "seconds=" },
		{ NULL, "0", NULL, NULL, NULL, "pid=" },
		{ NULL, "4194305", NULL, NULL, NULL, "pid=" },
		{ NULL, "12x", NULL, NULL, NULL, "pid=" },
		{ NULL, NULL, "", NULL, NULL, "comm=" },
		{ NULL, NULL, "sixteen-bytes-xx", NULL, NULL, "comm=" },
		{ NULL, NULL, NULL, "system.slice", NULL, "cgroup=" },
		{ NULL, NULL, NULL, "", NULL, "cgroup=" },
		{ NULL, NULL, NULL, NULL, "0123456789a", "container=" },
		{ NULL, NULL, NULL, NULL, "0123456789AB", "container=" },
		{ NULL, NULL, NULL, NULL, ID64 "0", "container=" },
		{ NULL, NULL, NULL, NULL, "../../etc/passwd", "container=" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile_query q;
		char err[256] = "";

		assert_int_equal(profile_query_parse(&q, bad[i].seconds, bad[i].pid, bad[i].comm,
						     bad[i].cgroup, bad[i].container, err, sizeof(err)),
				 -EINVAL);
		if (strncmp(err, bad[i].named, strlen(bad[i].named)) || strchr(err, '\n'))
			fail_msg("case %zu: \"%s\" does not name %s in one line", i, err, bad[i].named);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_values),
		cmocka_unit_test(test_malformed_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
