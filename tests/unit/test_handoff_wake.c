/* SPDX-License-Identifier: GPL-2.0-only */
/* test_handoff_wake.c: the pipe that wakes the writer: a wakeup given before
 * the wait is taken at once, a few given so far in one wait; with none, a
 * wait lasts its timeout; any number given with nobody waiting never blocks
 * the one who gives them (the full pipe holds a wakeup already), and each
 * wait then takes up to 256 until none is left; a thread blocked in a wait is woken by another's
 * wakeup well before its timeout; and closing twice closes nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sys/handoff_wake.h"

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* a wakeup or a wait that blocked past its time would hang the test: the
 * alarm ends it */
static int setup(void **state)
{
	(void)state;
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	return 0;
}

static void test_init_opens_nonblocking_pipe(void **state)
{
	struct handoff_wake w;

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	assert_true(w.rd >= 0);
	assert_true(w.wr >= 0);
	assert_true(fcntl(w.rd, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(w.wr, F_GETFL) & O_NONBLOCK);
	handoff_wake_close(&w);
}

static void test_signal_before_wait_taken(void **state)
{
	struct handoff_wake w;

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	handoff_wake_signal(&w);
	assert_true(handoff_wake_wait(&w, 0));
	assert_false(handoff_wake_wait(&w, 0));
	/* three given: one wait takes them all */
	handoff_wake_signal(&w);
	handoff_wake_signal(&w);
	handoff_wake_signal(&w);
	assert_true(handoff_wake_wait(&w, 0));
	assert_false(handoff_wake_wait(&w, 0));
	handoff_wake_close(&w);
}

static void test_no_signal_waits_the_timeout(void **state)
{
	struct handoff_wake w;
	uint64_t start;

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	start = now_ms();
	assert_false(handoff_wake_wait(&w, 30));
	/* (poll waits at least its timeout: 25 leaves room for the clock) */
	assert_true(now_ms() - start >= 25);
	handoff_wake_close(&w);
}

static void test_many_signals_never_block(void **state)
{
	struct handoff_wake w;
	char b = 1;
	int i;

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	/* more than a pipe holds (64 KiB by default): a signal that blocked
	 * would hang here, cut short by the alarm */
	for (i = 0; i < 200000; i++)
		handoff_wake_signal(&w);
	/* the pipe is full: another byte would block */
	assert_int_equal(write(w.wr, &b, 1), -1);
	assert_int_equal(errno, EAGAIN);
	/* each wait takes up to 256 of them: the rest wake the next waits at
	 * once, until none is left */
	for (i = 0; i < 1 << 20 && handoff_wake_wait(&w, 0); i++)
		;
	printf("a full pipe's wakeups taken in %d waits\n", i);
	assert_true(i >= 1 && i <= (1 << 20) / 256);
	assert_false(handoff_wake_wait(&w, 0));
	handoff_wake_close(&w);
}

struct waiter {
	struct handoff_wake *w;
	atomic_long tid;  /* set just before the wait */
	bool woken;
	uint64_t waited_ms;
};

static void *wait_long(void *arg)
{
	struct waiter *s = arg;
	uint64_t start = now_ms();

	atomic_store(&s->tid, (long)syscall(SYS_gettid));
	s->woken = handoff_wake_wait(s->w, 5000);
	s->waited_ms = now_ms() - start;
	return NULL;
}

/* The state of the thread tid as /proc shows it ('S': asleep), or 0. */
static char task_state(long tid)
{
	char path[64], line[512], *p, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && (p = strrchr(line, ')')) && p[1] == ' ')
		st = p[2];
	fclose(f);
	return st;
}

static void test_signal_wakes_blocked_thread(void **state)
{
	struct handoff_wake w;
	struct waiter s = { .w = &w };
	struct timespec ms = { 0, 1000000 };
	pthread_t t;
	long tid;
	int i;

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	atomic_init(&s.tid, 0);
	assert_int_equal(pthread_create(&t, NULL, wait_long, &s), 0);
	/* wait for it to be asleep in the wait (poll), up to 2 s */
	for (i = 0; i < 2000; i++) {
		tid = atomic_load(&s.tid);
		if (tid && task_state(tid) == 'S')
			break;
		nanosleep(&ms, NULL);
	}
	handoff_wake_signal(&w);
	pthread_join(t, NULL);
	assert_true(s.woken);
	assert_true(s.waited_ms < 2000);
	assert_false(handoff_wake_wait(&w, 0));
	handoff_wake_close(&w);
}

static void test_close_twice(void **state)
{
	struct handoff_wake w;
	int other[2];

	(void)state;
	assert_int_equal(handoff_wake_init(&w), 0);
	handoff_wake_close(&w);
	assert_int_equal(w.rd, -1);
	assert_int_equal(w.wr, -1);
	/* a pipe opened since takes the numbers just freed: the second close
	 * must leave it open */
	assert_int_equal(pipe(other), 0);
	handoff_wake_close(&w);
	assert_int_equal(w.rd, -1);
	assert_int_equal(w.wr, -1);
	assert_true(fcntl(other[0], F_GETFD) >= 0);
	assert_true(fcntl(other[1], F_GETFD) >= 0);
	close(other[0]);
	close(other[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_init_opens_nonblocking_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_before_wait_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_signal_waits_the_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_signals_never_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_wakes_blocked_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_twice, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
