/* SPDX-License-Identifier: GPL-2.0-only */
/* test_demangle.c: C++ and Rust (legacy and v0) names demangled as perf shows
 * them; plain C names left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

static void expect(const char *mangled, const char *want)
{
	char *got = demangle(mangled);

	if (!want) {
		assert_null(got);
		return;
	}
	if (!got || strcmp(got, want))
		fail_msg("%s: got \"%s\", wanted \"%s\"", mangled, got ? got : "(null)", want);
	free(got);
}

static void test_cxx(void **state)
{
	(void)state;
	/* as perf shows them: without the parameter list */
	expect("_ZN14ringtrace_test7Spinner4spinEi", "ringtrace_test::Spinner::spin");
	expect("_ZNSt6vectorIiSaIiEE9push_backERKi",
	       "std::vector<int, std::allocator<int> >::push_back");
}

static void test_rust(void **state)
{
	(void)state;
	/* legacy: the hash is dropped, as perf shows it */
	expect("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	/* v0 */
	expect("_RNvCs15kBYyAo9fc_7mycrate4main", "mycrate::main");
}

static void test_plain_names_stay(void **state)
{
	(void)state;
	expect("main", NULL);
	expect("loadgen_hot_loop", NULL);
	expect("_start", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_plain_names_stay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
