/* SPDX-License-Identifier: GPL-2.0-only */
/* test_runtime_procs.c: the process table the runtimes' walks share: a
 * flight recording keeps the last RUNTIME_EXITED_MAX exited processes and
 * lets the first exited go past them (counted); a pid taken again lets its
 * first process go, kept or not; the maps are written as DIR/perf-PID.map,
 * those of no line left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/runtime_procs.h"

static struct runtime_proc *noted(struct runtime_procs *t, uint32_t pid)
{
	struct runtime_proc *pr = runtime_procs_new_proc(t, pid, sizeof(*pr));

	assert_non_null(pr);
	assert_int_equal(pr->pid, pid);
	return pr;
}

static void test_exited_kept_to_the_most(void **state)
{
	struct runtime_procs t;

	(void)state;
	runtime_procs_init(&t, -1, NULL, true, "process");
	for (uint32_t pid = 1; pid <= RUNTIME_EXITED_MAX + 8; pid++)
		runtime_procs_exited(&t, noted(&t, pid));
	assert_int_equal(t.nr_exited, RUNTIME_EXITED_MAX);
	assert_int_equal(t.evicted, 8);
	assert_int_equal(t.procs.len, RUNTIME_EXITED_MAX);
	/* the first exited went */
	for (uint32_t pid = 1; pid <= 8; pid++)
		assert_null(hash_map_get(&t.procs, &pid));
	for (uint32_t pid = 9; pid <= RUNTIME_EXITED_MAX + 8; pid++)
		assert_non_null(hash_map_get(&t.procs, &pid));
	runtime_procs_free(&t);
}

static void test_pid_taken_again(void **state)
{
	struct runtime_procs t;
	struct runtime_proc *first, *second;
	uint32_t pid = 77;

	(void)state;
	runtime_procs_init(&t, -1, NULL, true, "process");
	first = noted(&t, pid);
	runtime_procs_exited(&t, first);
	assert_int_equal(t.nr_exited, 1);
	/* its pid a new process's: the first let go, not counted as kept */
	second = noted(&t, pid);
	assert_int_equal(t.nr_exited, 0);
	assert_int_equal(t.procs.len, 1);
	assert_ptr_equal(hash_map_get(&t.procs, &pid), second);
	assert_int_equal(second->exited_seq, 0);
	/* and one running, its pid taken again (an exec): the same */
	noted(&t, pid);
	assert_int_equal(t.procs.len, 1);
	assert_int_equal(t.evicted, 0);
	runtime_procs_free(&t);
}

static void test_maps_written(void **state)
{
	static const char lines[] = "1000 10 f (a.js:1)\n2000 10 g (a.js:2)\n";
	char dir[] = "/tmp/rt-runtime-procs-XXXXXX", path[128], got[256];
	struct runtime_procs t;
	struct runtime_proc *pr;
	ssize_t n;
	int dirfd, fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	runtime_procs_init(&t, dirfd, NULL, true, "process");
	pr = noted(&t, 41);
	assert_non_null(byte_buffer_append(&pr->map, lines, strlen(lines)));
	noted(&t, 42); /* no line: no map */
	runtime_procs_write_maps(&t, dirfd, dir);
	assert_int_equal(t.maps_written, 1);
	assert_int_equal(t.maps_failed, 0);
	snprintf(path, sizeof(path), "%s/perf-41.map", dir);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, got, sizeof(got) - 1);
	close(fd);
	assert_int_equal(n, (ssize_t)strlen(lines));
	got[n] = '\0';
	assert_string_equal(got, lines);
	snprintf(path, sizeof(path), "%s/perf-42.map", dir);
	assert_int_equal(access(path, F_OK), -1);
	runtime_procs_free(&t);
	snprintf(path, sizeof(path), "%s/perf-41.map", dir);
	unlink(path);
	close(dirfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_kept_to_the_most),
		cmocka_unit_test(test_pid_taken_again),
		cmocka_unit_test(test_maps_written),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
