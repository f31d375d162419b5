/* SPDX-License-Identifier: GPL-2.0-only */
/* test_proc_ids.c: this process among /proc's, each of its threads given
 * once, a walk stopped by its callback, a gone process named as gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/proc_ids.h"

#define THREADS 3

static pthread_barrier_t started, done;
static uint32_t tids[THREADS + 1];

static void *parked(void *arg)
{
	tids[(uintptr_t)arg] = (uint32_t)syscall(SYS_gettid);
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

struct seen {
	uint32_t want[THREADS + 1];
	unsigned int hits[THREADS + 1], ids;
	int stop_after; /* 0: never */
};

static int note(uint32_t id, void *arg)
{
	struct seen *s = arg;

	s->ids++;
	for (int i = 0; i <= THREADS; i++)
		s->hits[i] += id == s->want[i];
	return s->stop_after && (int)s->ids == s->stop_after ? 5 : 0;
}

static void test_threads_and_processes(void **state)
{
	pthread_t t[THREADS];
	struct seen s = { 0 };

	(void)state;
	pthread_barrier_init(&started, NULL, THREADS + 1);
	pthread_barrier_init(&done, NULL, THREADS + 1);
	tids[0] = (uint32_t)getpid();
	for (uintptr_t i = 1; i <= THREADS; i++)
		assert_int_equal(pthread_create(&t[i - 1], NULL, parked, (void *)i), 0);
	pthread_barrier_wait(&started);
	for (int i = 0; i <= THREADS; i++)
		s.want[i] = tids[i];
	assert_int_equal(proc_each_id((uint32_t)getpid(), note, &s), 0);
	assert_int_equal(s.ids, THREADS + 1);
	for (int i = 0; i <= THREADS; i++)
		assert_int_equal(s.hits[i], 1);
	s = (struct seen){ .want = { tids[0] } };
	assert_int_equal(proc_each_id(0, note, &s), 0);
	assert_int_equal(s.hits[0], 1); /* this process */
	assert_int_equal(s.hits[1], 0); /* a thread is no process of /proc's list */
	assert_true(s.ids > 1);
	s = (struct seen){ .stop_after = 2 };
	assert_int_equal(proc_each_id((uint32_t)getpid(), note, &s), 5);
	assert_int_equal(s.ids, 2);
	pthread_barrier_wait(&done);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

static void test_gone_process(void **state)
{
	struct seen s = { 0 };

	(void)state;
	/* above the kernel's PID_MAX_LIMIT (4M): no process has it */
	assert_int_equal(proc_each_id(4194304 + 7, note, &s), -ENOENT);
	assert_int_equal(s.ids, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_and_processes),
		cmocka_unit_test(test_gone_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
