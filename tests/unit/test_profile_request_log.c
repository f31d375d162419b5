/* SPDX-License-Identifier: GPL-2.0-only */
/* test_profile_request_log.c: the profile requests' summary in the log: one
 * line a period with the counts by type and status, none when idle, and what
 * is left said when it stops. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/profile_request_log.h"

/* stderr, redirected into a temporary file while the test runs. */
static int saved_stderr = -1;
static FILE *captured;

static void capture_stderr(void)
{
	fflush(stderr);
	captured = tmpfile();
	assert_non_null(captured);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_true(dup2(fileno(captured), STDERR_FILENO) >= 0);
}

/* What was written to stderr since the capture began (the caller frees). */
static char *captured_text(void)
{
	long n;
	char *text;

	fflush(stderr);
	n = lseek(fileno(captured), 0, SEEK_END);
	text = calloc(1, (size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(captured), text, (size_t)n, 0), n);
	return text;
}

static void restore_stderr(void)
{
	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	fclose(captured);
}

static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* stderr captured, a log of 1 s periods started. */
static struct profile_request_log *start_captured(void)
{
	struct profile_request_log *log;

	capture_stderr();
	log = profile_request_log_start(1);
	assert_non_null(log);
	return log;
}

static void test_summary_lines(void **state)
{
	struct profile_request_log *log = start_captured();
	char *text;

	(void)state;
	for (int i = 0; i < 5; i++)
		profile_request_log_count(log, PROFILE_CPU, 200);
	profile_request_log_count(log, PROFILE_CPU, 400);
	profile_request_log_count(log, PROFILE_OFFCPU, 503);
	profile_request_log_count(log, PROFILE_OFFCPU, 503);
	profile_request_log_count(log, PROFILE_OFFCPU, PROFILE_LOG_CLIENT_LEFT);
	/* the first period's line, then an idle period: nothing */
	usleep(2600000);
	text = captured_text();
	print_message("%s", text);
	assert_int_equal(count_lines(text), 1);
	/* (its seconds are the period's, 1, or more on a busy machine) */
	assert_non_null(strstr(text, "ringtrace: profile requests in the last "));
	assert_non_null(strstr(text, " s: cpu: 5 x 200, 1 x 400; offcpu: 1 x 499, 2 x 503 (HTTP "
				     "statuses; 499: the client left"));
	free(text);
	/* what came since is said as it stops */
	profile_request_log_count(log, PROFILE_OFFCPU, 200);
	profile_request_log_stop(log);
	text = captured_text();
	restore_stderr();
	print_message("%s", text);
	assert_int_equal(count_lines(text), 2);
	assert_non_null(strstr(strchr(text, '\n') + 1, ": offcpu: 1 x 200 (HTTP statuses)\n"));
	free(text);
}

/* Nothing counted: nothing said, at the periods or at the stop. */
static void test_idle_says_nothing(void **state)
{
	struct profile_request_log *log = start_captured();
	char *text;

	(void)state;
	usleep(1300000);
	profile_request_log_stop(log);
	text = captured_text();
	restore_stderr();
	assert_string_equal(text, "");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_lines),
		cmocka_unit_test(test_idle_says_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
