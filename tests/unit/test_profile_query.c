/* SPDX-License-Identifier: GPL-2.0-only */
/* test_profile_query.c: the query of GET /debug/pprof/profile: Go's default
 * and bounds for seconds=, the filters taken as given, every malformed
 * value refused with one line naming the parameter, every unknown parameter
 * refused by name, and type= against the path's kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "export/profile_requests.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_defaults_and_values(void **state)
{
	struct profile_query q;
	char err[256] = "";

	(void)state;
	assert_int_equal(profile_query_parse(&q, NULL, NULL, NULL, NULL, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.seconds, PROFILE_DEFAULT_SECONDS);
	assert_int_equal(q.pid, -1);
	assert_string_equal(q.comm, "");
	assert_string_equal(q.cgroup, "");
	assert_string_equal(q.container, "");
	assert_int_equal(profile_query_parse(&q, "1", "4194304", "kworker/0:1H-kb", "/system.slice/x.service",
					     ID64, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.seconds, 1);
	assert_int_equal(q.pid, 4194304);
	assert_string_equal(q.comm, "kworker/0:1H-kb");
	assert_string_equal(q.cgroup, "/system.slice/x.service");
	assert_string_equal(q.container, ID64);
	assert_int_equal(profile_query_parse(&q, "60", NULL, NULL, NULL, "0123456789ab", NULL, err,
					     sizeof(err)), 0);
	assert_int_equal(q.seconds, PROFILE_MAX_SECONDS);
	assert_string_equal(q.container, "0123456789ab");
	assert_string_equal(q.namespace_, "");
	assert_string_equal(q.pod, "");
	assert_string_equal(q.container_name, "");
}

/* namespace=, pod= and container_name=: Kubernetes names, kept as given. */
static void test_kube_names(void **state)
{
	static const char pod253[] = "a123456789.123456789.123456789.123456789.123456789.123456789."
				     "123456789.123456789.123456789.123456789.123456789.123456789."
				     "123456789.123456789.123456789.123456789.123456789.123456789."
				     "123456789.123456789.123456789.123456789.123456789.123456789.123456789012";
	struct profile_query q;
	char err[256] = "";

	(void)state;
	assert_int_equal(strlen(pod253), 253);
	assert_int_equal(profile_query_parse(&q, NULL, NULL, NULL, NULL, NULL,
					     &(struct profile_query_names){ "kube-system",
									    "coredns-5d78c9869d-x7x2v",
									    "coredns" },
					     err, sizeof(err)), 0);
	assert_string_equal(q.namespace_, "kube-system");
	assert_string_equal(q.pod, "coredns-5d78c9869d-x7x2v");
	assert_string_equal(q.container_name, "coredns");
	assert_int_equal(profile_query_parse(&q, NULL, NULL, NULL, NULL, NULL,
					     &(struct profile_query_names){ NULL, pod253, NULL },
					     err, sizeof(err)), 0);
	assert_string_equal(q.pod, pod253);
}

static void test_malformed_kube_names(void **state)
{
	static const struct {
		struct profile_query_names names;
		const char *named;
	} bad[] = {
		{ { "", NULL, NULL }, "namespace=" },
		{ { "Kube-System", NULL, NULL }, "namespace=" },
		{ { "a.b", NULL, NULL }, "namespace=" },
		{ { "a234567890123456789012345678901234567890123456789012345678901234", NULL, NULL },
		  "namespace=" },
		{ { NULL, "", NULL }, "pod=" },
		{ { NULL, "web_0", NULL }, "pod=" },
		{ { NULL, "web\"0", NULL }, "pod=" },
		{ { NULL, NULL, "" }, "container_name=" },
		{ { NULL, NULL, "app/x" }, "container_name=" },
		{ { NULL, NULL, "a.b" }, "container_name=" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct profile_query q;
		char err[256] = "";

		assert_int_equal(profile_query_parse(&q, NULL, NULL, NULL, NULL, NULL, &bad[i].names,
						     err, sizeof(err)),
				 -EINVAL);
		if (strncmp(err, bad[i].named, strlen(bad[i].named)) || strchr(err, '\n'))
			fail_msg("case %zu: \"%s\" does not name %s in one line", i, err, bad[i].named);
	}
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
						     bad[i].cgroup, bad[i].container, NULL, err,
						     sizeof(err)),
				 -EINVAL);
		if (strncmp(err, bad[i].named, strlen(bad[i].named)) || strchr(err, '\n'))
			fail_msg("case %zu: \"%s\" does not name %s in one line", i, err, bad[i].named);
	}
}

/* The parameters the paths take pass; any other (pod= until it is a
 * filter, a prefix or a longer name of a known one, case changed, empty) is
 * refused by name in one line, and a control byte in it is not echoed. */
static void test_parameter_names(void **state)
{
	static const char *const known[] = { "seconds", "type", "pid", "comm", "cgroup", "container",
					     "namespace", "pod", "container_name" };
	static const char *const unknown[] = { "pods", "Namespace", "container_names", "sec",
					       "seconds2", "PID", "", "debug", "gc", "pid " };
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		assert_int_equal(profile_query_check_name(known[i], err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		char named[80];

		err[0] = 0;
		assert_int_equal(profile_query_check_name(unknown[i], err, sizeof(err)), -EINVAL);
		snprintf(named, sizeof(named), "unknown parameter %s=", unknown[i]);
		if (i == sizeof(unknown) / sizeof(unknown[0]) - 1)
			strcpy(named, "unknown parameter pid?=");
		if (strncmp(err, named, strlen(named)) || strchr(err, '\n') || !strstr(err, "seconds=") ||
		    !strstr(err, "container="))
			fail_msg("\"%s\": \"%s\" does not name it and those taken in one line", unknown[i], err);
	}
	assert_int_equal(profile_query_check_name("a\x1b]0;x\x07", err, sizeof(err)), -EINVAL);
	assert_null(strchr(err, '\x1b'));
	assert_null(strchr(err, '\x07'));
}

/* type= chooses the kind on the CPU path; the off-CPU path is off-CPU
 * whatever, and refuses type=cpu; an unknown type is refused. */
static void test_kinds(void **state)
{
	struct profile_query q;
	char err[256];

	(void)state;
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_CPU, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.kind, PROFILE_CPU);
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_CPU, "offcpu", err, sizeof(err)), 0);
	assert_int_equal(q.kind, PROFILE_OFFCPU);
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_CPU, "cpu", err, sizeof(err)), 0);
	assert_int_equal(q.kind, PROFILE_CPU);
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_OFFCPU, NULL, err, sizeof(err)), 0);
	assert_int_equal(q.kind, PROFILE_OFFCPU);
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_OFFCPU, "offcpu", err, sizeof(err)), 0);
	assert_int_equal(q.kind, PROFILE_OFFCPU);
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_OFFCPU, "cpu", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "type="));
	assert_int_equal(profile_query_parse_kind(&q, PROFILE_CPU, "wall", err, sizeof(err)), -EINVAL);
	assert_int_equal(strncmp(err, "type=", 5), 0);
	assert_string_equal(profile_kind_name(PROFILE_CPU), "cpu");
	assert_string_equal(profile_kind_name(PROFILE_OFFCPU), "offcpu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_values),
		cmocka_unit_test(test_malformed_values),
		cmocka_unit_test(test_kube_names),
		cmocka_unit_test(test_malformed_kube_names),
		cmocka_unit_test(test_parameter_names),
		cmocka_unit_test(test_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
