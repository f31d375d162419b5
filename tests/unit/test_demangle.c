/* SPDX-License-Identifier: GPL-2.0-only */
/* test_demangle.c: C++ and Rust (legacy and v0) names demangled as perf 6.1
 * shows them (no parameter lists); plain C names left alone. */
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
	/* perf demangles with DMGL_NO_OPTS unless -v: no parameters */
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

/* Names the first-letter check passes to libiberty still demangled as it
 * does (a file's constructors and destructors); look-alikes left alone. */
static void test_prefixes_as_libiberty(void **state)
{
	(void)state;
	expect("_GLOBAL__I_main", "global constructors keyed to main");
	expect("_GLOBAL__D_main", "global destructors keyed to main");
	expect("_GLOBAL__sub_I_main", NULL);
	expect("__libc_start_main", NULL);
	expect("_Zfoo", NULL);
	expect("Z", NULL);
	expect("_", NULL);
	expect("", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_plain_names_stay),
		cmocka_unit_test(test_prefixes_as_libiberty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
