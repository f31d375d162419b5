/* SPDX-License-Identifier: GPL-2.0-only */
/* test_ring_sizes.c: the default ring size per CPU: 1 MiB, halved while the
 * rings of every CPU would pass 64 MiB or a 64th of the machine's memory,
 * never below 64 KiB; a 128-CPU machine's rings stay within 64 MiB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture/transport.h"

#define KiB 1024ull
#define GiB (1024ull * 1024 * 1024)

static void test_default_ring_bytes(void **state)
{
	(void)state;
	/* this project's machine: 2 CPUs, 24 GiB */
	assert_int_equal(transport_default_ring_bytes(2, 24 * GiB), 1024 * KiB);
	/* 64 CPUs: 64 MiB in all, at 1 MiB each */
	assert_int_equal(transport_default_ring_bytes(64, 256 * GiB), 1024 * KiB);
	/* 128 and 256 CPUs: halved to stay within 64 MiB */
	assert_int_equal(transport_default_ring_bytes(128, 256 * GiB), 512 * KiB);
	assert_int_equal(transport_default_ring_bytes(256, 1024 * GiB), 256 * KiB);
	/* little memory: a 64th of it, 8 MiB for 64 CPUs */
	assert_int_equal(transport_default_ring_bytes(64, GiB / 2), 128 * KiB);
	/* never below 64 KiB */
	assert_int_equal(transport_default_ring_bytes(4096, GiB), 64 * KiB);
	assert_int_equal(transport_default_ring_bytes(0, 0), 64 * KiB);
	for (unsigned int cpus = 1; cpus <= 8192; cpus *= 2) {
		size_t b = transport_default_ring_bytes(cpus, 64 * GiB);

		assert_true((uint64_t)b * cpus <= 64 * 1024 * KiB || b == 64 * KiB);
		assert_true(b && !(b & (b - 1)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_ring_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
