/* SPDX-License-Identifier: GPL-2.0-only */
/* test_fuzz_inputs.c: every seed and every crash the fuzzers found (kept in
 * tests/fuzz/) replayed through the fuzz targets' code, under the test
 * build's sanitizers: a fixed crash stays fixed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#define LLVMFuzzerTestOneInput fuzz_perf_data_one
#include "../fuzz/fuzz_perf_data.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_cli_one
#include "../fuzz/fuzz_cli.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_trace_filter_one
#include "../fuzz/fuzz_trace_filter.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_unwind_compile_one
#include "../fuzz/fuzz_unwind_compile.c"
#undef LLVMFuzzerTestOneInput

#ifndef FUZZ_DIR
#define FUZZ_DIR "tests/fuzz"
#endif

/* Runs fn on every file of FUZZ_DIR/sub; returns how many. */
static int replay(const char *sub, int (*fn)(const uint8_t *, size_t))
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", FUZZ_DIR, sub);
	d = opendir(path);
	if (!d)
		fail_msg("cannot open %s", path);
	while ((de = readdir(d))) {
		char file[PATH_MAX + 256];
		uint8_t *data;
		long size;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		f = fopen(file, "rb");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		rewind(f);
		data = malloc((size_t)size + 1);
		assert_non_null(data);
		assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
		fclose(f);
		fn(data, (size_t)size);
		free(data);
		n++;
	}
	closedir(d);
	return n;
}

/* A recording is replayed as the fuzzer found it, then read by every
 * command (the selector in the top byte of its first word). */
static int fuzz_perf_data_every_command(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size < 4 ? 4 : size);

	assert_non_null(copy);
	fuzz_perf_data_one(data, size);
	memset(copy, 0, 4);
	memcpy(copy, data, size);
	for (unsigned int c = 0; c < FUZZ_NR_COMMANDS; c++) {
		copy[3] = (uint8_t)c;
		fuzz_perf_data_one(copy, size < 4 ? 4 : size);
	}
	free(copy);
	return 0;
}

static void test_perf_data_inputs(void **state)
{
	(void)state;
	assert_true(replay("perf_data", fuzz_perf_data_every_command) > 0);
}

static void test_cli_inputs(void **state)
{
	(void)state;
	assert_true(replay("cli", fuzz_cli_one) > 0);
}

static void test_trace_filter_inputs(void **state)
{
	(void)state;
	assert_true(replay("trace_filter", fuzz_trace_filter_one) > 0);
}

/* A compile's CPU time (user and system: a frame libdw grows to gigabytes
 * is page faults) within a budget far above what any input needs
 * (milliseconds), far below the fuzzer's 10 s timeout. */
#define UNWIND_COMPILE_INPUT_SECONDS 2.0

static int fuzz_unwind_compile_timed(const uint8_t *data, size_t size)
{
	double start = tu_process_cpu_seconds(getpid()), spent;

	fuzz_unwind_compile_one(data, size);
	spent = tu_process_cpu_seconds(getpid()) - start;
	if (spent > UNWIND_COMPILE_INPUT_SECONDS)
		fail_msg("an input of %zu bytes took %.1f s of CPU to compile (budget %.1f s)", size,
			 spent, UNWIND_COMPILE_INPUT_SECONDS);
	return 0;
}

/* Its seeds are written from the machine's binaries at each run; what is
 * kept here is its regressions (and a README, not an ELF file), each
 * within a time budget. */
static void test_unwind_compile_inputs(void **state)
{
	(void)state;
	assert_true(replay("unwind_compile", fuzz_unwind_compile_timed) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_data_inputs),
		cmocka_unit_test(test_cli_inputs),
		cmocka_unit_test(test_trace_filter_inputs),
		cmocka_unit_test(test_unwind_compile_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
