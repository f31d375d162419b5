/* SPDX-License-Identifier: GPL-2.0-only */
/* test_interrupt.c: SIGINT while a recording is read: a flag the reading
 * loops stop at (record_stream), the process ended by the signal after the
 * grace or at a second signal, a signal ignored from the start left so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/record_stream.h"
#include "lib/monotonic.h"
#include "sys/interrupt.h"
#include "test_util.h"

#define SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |    \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/* Runs fn in a child (SIGINT and SIGTERM at their defaults there, as in a
 * shell's foreground command); its wait status, and in *seconds how long it ran. */
static int in_child(int (*fn)(void *), void *arg, double *seconds)
{
	uint64_t start = monotonic_ns();
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		_exit(fn(arg));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*seconds = (double)(monotonic_ns() - start) / 1e9;
	return status;
}

/* Caught, noticed, its twin ignored; once stopping, the grace never ends it. */
static int noticed(void *arg)
{
	(void)arg;
	interrupt_catch();
	if (interrupt_pending())
		return 1;
	raise(SIGINT);
	if (interrupt_pending() != SIGINT || strcmp(interrupt_name(), "SIGINT"))
		return 2;
	raise(SIGINT); /* the twin: within 200 ms */
	interrupt_stopping();
	usleep((INTERRUPT_GRACE_MS + 200) * 1000);
	return 0;
}

/* Caught and never noticed: the grace ends it. */
static int never_noticed(void *arg)
{
	(void)arg;
	interrupt_catch();
	raise(SIGTERM);
	for (uint64_t start = monotonic_ns(); monotonic_ns() - start < 5000000000ULL;)
		;
	return 10;
}

/* A second signal, not the first's twin, ends it at once. */
static int second(void *arg)
{
	(void)arg;
	interrupt_catch();
	raise(SIGINT);
	usleep((INTERRUPT_TWIN_MS + 50) * 1000);
	raise(SIGINT);
	return 3;
}

/* A SIGINT ignored from the start (a background job's) stays ignored. */
static int ignored(void *arg)
{
	(void)arg;
	signal(SIGINT, SIG_IGN);
	interrupt_catch();
	raise(SIGINT);
	return interrupt_pending() ? 4 : 0;
}

/* interrupt_end ends the process as the signal caught would have. */
static int ended(void *arg)
{
	(void)arg;
	interrupt_end(); /* none caught: returns */
	interrupt_catch();
	raise(SIGINT);
	interrupt_stopping();
	interrupt_end();
	return 5;
}

/* The stream of the recording in dir stops at the flag: record_stream_next
 * with -EINTR, record_stream_open with "F: offset N: interrupted". */
static int stream_stops(void *arg)
{
	const char *dir = arg;
	struct stream_record sr;
	struct record_stream *rs;
	struct perf_input in;
	char err[512];

	interrupt_catch();
	if (perf_input_open(&in, dir, err, sizeof(err)) || !(rs = record_stream_open(&in, err, sizeof(err))))
		return 6;
	if (record_stream_next(rs, &sr) != 1)
		return 7;
	raise(SIGINT);
	if (record_stream_next(rs, &sr) != -EINTR)
		return 8;
	record_stream_close(rs);
	if (record_stream_open(&in, err, sizeof(err)) || !strstr(err, "data.cpu0: offset 0: interrupted"))
		return 9;
	interrupt_stopping();
	perf_input_close(&in);
	return 0;
}

static void test_flag_noticed(void **state)
{
	double s;
	int status = in_child(noticed, NULL, &s);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_grace_ends_it(void **state)
{
	double s;
	int status = in_child(never_noticed, NULL, &s);

	(void)state;
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	if (s < INTERRUPT_GRACE_MS / 1e3 * 0.9 || s > 1.0)
		fail_msg("ended %.3f s after the signal: want the grace, %d ms", s, INTERRUPT_GRACE_MS);
}

static void test_second_signal_ends_it(void **state)
{
	double s;
	int status = in_child(second, NULL, &s);

	(void)state;
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	assert_true(s < INTERRUPT_GRACE_MS / 1e3);
}

static void test_ignored_stays_ignored(void **state)
{
	double s;
	int status = in_child(ignored, NULL, &s);

	(void)state;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_end_is_the_signal(void **state)
{
	double s;
	int status = in_child(ended, NULL, &s);

	(void)state;
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
}

static void test_stream_stops(void **state)
{
	struct perf_sample s = { .ip = 0x400000, .pid = 7, .tid = 7, .period = 1 };
	struct tu_recording r;
	char *dir = tu_tempdir();
	double seconds;
	int status;

	(void)state;
	tu_recording_init(&r, 1);
	tu_recording_event(&r, "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, SAMPLE_TYPE,
			   101);
	for (unsigned int i = 0; i < 3; i++) {
		s.time = i + 1;
		tu_recording_sample(&r, 0, &s);
	}
	tu_recording_write(&r, dir);
	tu_recording_free(&r);
	status = in_child(stream_stops, dir, &seconds);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tu_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_noticed),
		cmocka_unit_test(test_grace_ends_it),
		cmocka_unit_test(test_second_signal_ends_it),
		cmocka_unit_test(test_ignored_stays_ignored),
		cmocka_unit_test(test_end_is_the_signal),
		cmocka_unit_test(test_stream_stops),
	};

	tu_set_skip_reason(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
