/* SPDX-License-Identifier: GPL-2.0-only */
/* test_address_space.c: addresses resolve by the mappings in force when they
 * are looked up: a new mapping or a fork is seen at once, cache or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/mman.h>

#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "symbols/address_space.h"

#define SAMPLE_ID_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void map_file(struct address_space *as, uint32_t pid, uint64_t start, const char *path)
{
	struct byte_buffer b = { 0 };
	struct perf_mmap m = { .pid = pid, .tid = pid, .start = start, .len = 0x1000,
			       .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
			       .filename = path };
	struct perf_sample_id sid = { .pid = pid, .tid = pid };

	assert_int_equal(perf_mmap2_encode(&b, SAMPLE_ID_TYPE, &m, &sid), 0);
	assert_int_equal(address_space_apply(as, (const void *)b.data, SAMPLE_ID_TYPE), 0);
	byte_buffer_free(&b);
}

static void fork_process(struct address_space *as, uint32_t parent, uint32_t child)
{
	struct byte_buffer b = { 0 };
	struct perf_task t = { .pid = child, .ppid = parent, .tid = child, .ptid = parent };
	struct perf_sample_id sid = { .pid = child, .tid = child };

	assert_int_equal(perf_task_encode(&b, SAMPLE_ID_TYPE, PERF_RECORD_FORK, &t, &sid), 0);
	assert_int_equal(address_space_apply(as, (const void *)b.data, SAMPLE_ID_TYPE), 0);
	byte_buffer_free(&b);
}

static const char *dso_of(struct address_space *as, uint32_t pid, uint64_t ip)
{
	struct resolved r;

	address_space_resolve(as, pid, ip, PERF_RECORD_MISC_USER, &r);
	return r.dso;
}

static void test_a_new_mapping_is_seen_at_once(void **state)
{
	struct address_space as;

	(void)state;
	address_space_init(&as, "/nonexistent");
	assert_string_equal(dso_of(&as, 100, 0x400100), "[unknown]");
	map_file(&as, 100, 0x400000, "/nonexistent/a");
	assert_string_equal(dso_of(&as, 100, 0x400100), "/nonexistent/a");
	assert_string_equal(dso_of(&as, 100, 0x400100), "/nonexistent/a"); /* again */
	map_file(&as, 100, 0x400000, "/nonexistent/b"); /* mapped over */
	assert_string_equal(dso_of(&as, 100, 0x400100), "/nonexistent/b");
	/* another process at the same address is not this one */
	assert_string_equal(dso_of(&as, 101, 0x400100), "[unknown]");
	fork_process(&as, 100, 101);
	assert_string_equal(dso_of(&as, 101, 0x400100), "/nonexistent/b");
	address_space_free(&as);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_new_mapping_is_seen_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
