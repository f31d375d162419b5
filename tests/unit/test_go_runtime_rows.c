/* SPDX-License-Identifier: GPL-2.0-only */
/* test_go_runtime_rows.c: the rows compiled for a Go executable (tools/gogen)
 * where its .debug_frame says too little: its runtime's stack roots end a
 * walk, its stack switches go on by frame pointers, its signal return is a
 * signal frame (at the byte before it too, where its return address is
 * looked up), and its frames' saved rbp is known; a C program gets none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/go_runtime.h"
#include "symbols/unwind_compile.h"
#include "test_util.h"

static void symgen_path(char *path, size_t size, const char *name)
{
	const char *dir = getenv("SYMGEN_DIR");

	if (!dir)
		tu_skip("SYMGEN_DIR is not set: run through make check");
	snprintf(path, size, "%s/%s", dir, name);
}

/* The address of symbol name in path, as nm prints it (0: none). */
static uint64_t symbol_address(const char *path, const char *name)
{
	char *out = NULL;
	uint64_t addr = 0;

	if (!tu_sh(&out, "nm %s | awk '$3 == \"%s\" { print $1 }'", path, name))
		addr = strtoull(out, NULL, 16);
	free(out);
	return addr;
}

static void build_table(const char *path, struct unwind_table *t)
{
	char err[256];
	enum unwind_refusal why;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	if (unwind_table_build(fd, NULL, t, &why, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	close(fd);
}

static void expect_rule(const struct unwind_table *t, uint64_t pc, enum unwind_cfa cfa,
			const char *what)
{
	const struct unwind_row *r = unwind_table_find(t, pc);

	if (!r || r->cfa != cfa)
		fail_msg("%s at 0x%" PRIx64 ": rule %d, want %d", what, pc, r ? r->cfa : -1, cfa);
}

static void test_go_runtime_rules(void **state)
{
	static const struct {
		const char *symbol;
		enum unwind_cfa cfa;
	} want[] = {
		{ "runtime.goexit.abi0", UNWIND_CFA_OUTERMOST },
		{ "runtime.mstart.abi0", UNWIND_CFA_OUTERMOST },
		{ "runtime.rt0_go.abi0", UNWIND_CFA_OUTERMOST },
		{ "runtime.systemstack.abi0", UNWIND_CFA_STACK_SWITCH },
		{ "runtime.mcall", UNWIND_CFA_STACK_SWITCH },
		{ "runtime.morestack.abi0", UNWIND_CFA_STACK_SWITCH },
		{ "runtime.nanotime1.abi0", UNWIND_CFA_STACK_SWITCH },
		{ "time.now", UNWIND_CFA_STACK_SWITCH },
		{ "runtime.sigreturn.abi0", UNWIND_CFA_SIGNAL },
	};
	char path[PATH_MAX];
	struct unwind_table t;
	uint64_t at, sigreturn;
	const struct unwind_row *r;

	(void)state;
	symgen_path(path, sizeof(path), "gogen");
	build_table(path, &t);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		at = symbol_address(path, want[i].symbol);
		if (!at)
			fail_msg("%s has no %s", path, want[i].symbol);
		expect_rule(&t, at + 1, want[i].cfa, want[i].symbol);
	}
	sigreturn = symbol_address(path, "runtime.sigreturn.abi0");
	expect_rule(&t, sigreturn - 1, UNWIND_CFA_SIGNAL, "the byte before runtime.sigreturn");
	/* main.readStats has a frame: the caller's rbp below its return address */
	at = symbol_address(path, "main.readStats");
	assert_true(at != 0);
	r = unwind_table_find(&t, at + 32);
	assert_non_null(r);
	assert_int_equal(r->cfa, UNWIND_CFA_RSP);
	assert_true(r->cfa_offset >= 24);
	assert_int_equal(r->rbp, UNWIND_RBP_SAVED);
	assert_int_equal(r->rbp_offset, -16);
	unwind_table_free(&t);
}

/* A C program's .debug_frame is not Go's: no rule changed. */
static void test_c_program_not_go(void **state)
{
	char path[PATH_MAX];
	struct unwind_table t;

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen_debugframe");
	build_table(path, &t);
	for (size_t i = 0; i < t.nr; i++)
		assert_int_not_equal(t.rows[i].cfa, UNWIND_CFA_STACK_SWITCH);
	unwind_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_go_runtime_rules),
		cmocka_unit_test(test_c_program_not_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
