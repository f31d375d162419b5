/* SPDX-License-Identifier: GPL-2.0-only */
/* test_sched_slice.c: the drain thread's slice: sched_slice_set gives the
 * calling thread the slice asked for (as the kernel shows it in
 * /proc/self/task/TID/sched), keeps its nice, and a thread it starts after
 * gets the default slice, as a process it forks does; where its nice is
 * below 0, they keep the slice and the nice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/sched_slice.h"

/* The calling thread's slice in ns, or 0 where the kernel does not show
 * one (before 6.12, or without its scheduler debug files). */
static uint64_t own_slice(void)
{
	char path[128], line[256];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/sched", (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.slice", 8) && sscanf(strchr(line, ':') + 1, "%llu", &ns) == 1)
			break;
	fclose(f);
	return ns;
}

static void *slice_of_thread(void *arg)
{
	*(uint64_t *)arg = own_slice();
	return NULL;
}

static void test_slice_set_for_the_thread_alone(void **state)
{
	uint64_t before, thread = 0;
	pthread_t t;
	int status, pipefd[2], nice_before;
	pid_t child;

	(void)state;
	before = own_slice();
	if (!before)
		skip(); /* (the kernel shows no slice: nothing to compare) */
	/* a nice of our own, kept (above 0: raising it needs no privilege) */
	nice_before = getpriority(PRIO_PROCESS, 0);
	nice_before = nice_before < 0 ? 0 : nice_before;
	assert_int_equal(setpriority(PRIO_PROCESS, 0, nice_before + 1), 0);
	assert_int_equal(sched_slice_set(SCHED_SLICE_SHORTEST_NS), 0);
	assert_int_equal(own_slice(), SCHED_SLICE_SHORTEST_NS);
	assert_int_equal(getpriority(PRIO_PROCESS, 0), nice_before + 1);
	assert_int_equal(pthread_create(&t, NULL, slice_of_thread, &thread), 0);
	pthread_join(t, NULL);
	assert_int_equal(thread, before);
	assert_int_equal(pipe(pipefd), 0);
	child = fork();
	if (!child) {
		uint64_t s = own_slice();

		_exit(write(pipefd[1], &s, sizeof(s)) == sizeof(s) ? 0 : 1);
	}
	assert_true(child > 0);
	assert_int_equal(read(pipefd[0], &thread, sizeof(thread)), sizeof(thread));
	waitpid(child, &status, 0);
	assert_int_equal(thread, before);
	close(pipefd[0]);
	close(pipefd[1]);
}

struct nice_and_slice {
	int nice;
	uint64_t slice;
};

static void *nice_and_slice_of_thread(void *arg)
{
	struct nice_and_slice *ns = arg;

	ns->nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
	ns->slice = own_slice();
	return NULL;
}

/* A thread below nice 0 (one that may lower it): threads it starts keep its
 * nice, and so its slice too (the flag that would reset the slice would
 * reset the nice). In a thread of its own: the test's others keep theirs. */
static void *below_nice_zero(void *arg)
{
	struct nice_and_slice *ns = arg;
	pthread_t t;

	if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -1))
		return NULL;
	if (sched_slice_set(SCHED_SLICE_SHORTEST_NS) ||
	    pthread_create(&t, NULL, nice_and_slice_of_thread, ns))
		return NULL;
	pthread_join(t, NULL);
	return ns;
}

static void test_below_nice_zero_children_keep_both(void **state)
{
	struct nice_and_slice ns = { 0, 0 };
	void *done = NULL;
	pthread_t t;

	(void)state;
	if (!own_slice())
		skip(); /* (the kernel shows no slice) */
	assert_int_equal(pthread_create(&t, NULL, below_nice_zero, &ns), 0);
	pthread_join(t, &done);
	if (!done)
		skip(); /* (no privilege to go below nice 0) */
	assert_int_equal(ns.nice, -1);
	assert_int_equal(ns.slice, SCHED_SLICE_SHORTEST_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slice_set_for_the_thread_alone),
		cmocka_unit_test(test_below_nice_zero_children_keep_both),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
