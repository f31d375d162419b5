/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_mem_default.c: --unwind-mem's default from the machine's code:
 * a row for every UNWIND_MEM_TEXT_BYTES_A_ROW bytes, a whole MiB, never below
 * the floor nor above the ceiling (a share of RAM, the map's most rows); and
 * /proc read within its time budget. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/unwind_mem_default.h"
#include "record/unwind_tables.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define NO_CAP UINT64_MAX

static void test_floor(void **state)
{
	(void)state;
	assert_int_equal(unwind_mem_for_text(0, 64 * GIB, NO_CAP), UNWIND_MEM_FLOOR);
	/* 32 MiB of code: 2 Mi rows, 34 MiB, below the floor */
	assert_int_equal(unwind_mem_for_text(32 * MIB, 64 * GIB, NO_CAP), UNWIND_MEM_FLOOR);
	/* a machine too small for a sixteenth to reach the floor: the floor */
	assert_int_equal(unwind_mem_for_text(4 * GIB, 512 * MIB, NO_CAP), UNWIND_MEM_FLOOR);
	assert_int_equal(unwind_mem_for_text(4 * GIB, 64 * GIB, 16 * MIB), UNWIND_MEM_FLOOR);
}

static void test_rows_of_the_code(void **state)
{
	(void)state;
	assert_int_equal(UNWIND_ROW_KERNEL_BYTES, 17);
	/* 1 GiB of code: 64 Mi rows (and one), 17 bytes each: 1088 MiB and
	 * 17 bytes, a whole MiB up */
	assert_int_equal(unwind_mem_for_text(GIB, 64 * GIB, NO_CAP), 1089 * MIB);
	/* 160 MiB: 10 Mi rows + 1, 170 MiB + 17 bytes */
	assert_int_equal(unwind_mem_for_text(160 * MIB, 64 * GIB, NO_CAP), 171 * MIB);
}

static void test_ceiling(void **state)
{
	(void)state;
	/* a sixteenth of the memory */
	assert_int_equal(unwind_mem_for_text(8 * GIB, 16 * GIB, NO_CAP), GIB);
	/* the map's most rows */
	assert_int_equal(unwind_mem_for_text(64 * GIB, 1024 * GIB, 1100 * MIB), 1100 * MIB);
}

/* Over a sweep of sizes: whole MiBs, within the bounds, never smaller for
 * more code. */
static void test_sweep(void **state)
{
	const uint64_t ram = 24 * GIB, ceiling = ram / UNWIND_MEM_RAM_SHARE;
	uint64_t last = 0;

	(void)state;
	for (uint64_t text = 0; text < 64 * GIB; text = text * 5 / 4 + 4096) {
		uint64_t mem = unwind_mem_for_text(text, ram, NO_CAP);

		assert_int_equal(mem % MIB, 0);
		assert_true(mem >= UNWIND_MEM_FLOOR && mem <= ceiling);
		assert_true(mem >= last);
		/* room for a row per UNWIND_MEM_TEXT_BYTES_A_ROW bytes, up to the ceiling */
		assert_true(mem == ceiling ||
			    mem / UNWIND_ROW_KERNEL_BYTES >= text / UNWIND_MEM_TEXT_BYTES_A_ROW);
		last = mem;
	}
	assert_int_equal(last, ceiling);
}

/* This process's own maps are readable: its program and libraries, once each. */
static void test_machine_text(void **state)
{
	struct unwind_machine_text m, none;

	(void)state;
	assert_int_equal(unwind_machine_text_read(&m, 5000), 0);
	assert_true(m.processes >= 1);
	assert_true(m.files >= 2); /* this program, the C library */
	assert_true(m.bytes >= 2 * 4096);
	assert_false(m.out_of_time);
	/* no time at all: nothing read, and said so */
	assert_int_equal(unwind_machine_text_read(&none, 0), 0);
	assert_true(none.out_of_time);
	assert_int_equal(none.processes, 0);
	assert_int_equal(none.bytes, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_rows_of_the_code),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_machine_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
