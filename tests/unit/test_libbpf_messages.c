/* SPDX-License-Identifier: GPL-2.0-only */
/* test_libbpf_messages.c: the verifier's reason for a refused program, taken
 * from the log libbpf prints of it (libbpf 1.1's message, handed to the
 * print function ringtrace sets), shown or not: the log's last line that is
 * not one of its statistics, after the program's name; other messages and
 * forget_refusal leave none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "capture/libbpf_messages.h"

/* libbpf_object_load_prog's words (libbpf 1.1.2, src/libbpf.c) */
#define LOAD_LOG_FORMAT "prog '%s': -- BEGIN PROG LOAD LOG --\n%s-- END PROG LOAD LOG --\n"

static libbpf_print_fn_t print_fn(void)
{
	libbpf_print_fn_t fn = libbpf_set_print(NULL);

	libbpf_set_print(fn);
	return fn;
}

/* A message through the print function, as libbpf hands it one. */
static void say(enum libbpf_print_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_fn()(level, fmt, ap);
	va_end(ap);
}

static void test_refusal_is_the_last_line_before_the_statistics(void **state)
{
	(void)state;
	libbpf_messages_show(false);
	libbpf_messages_forget_refusal();
	say(LIBBPF_WARN, LOAD_LOG_FORMAT, "on_perf_event",
	    "func#0 @0\n0: R1=ctx() R10=fp0\n; s->w[k] = 1;\n"
	    "12: (7b) *(u64 *)(r2 +0) = r1\n"
	    "R2 unbounded memory access, make sure to bounds check any such access\n"
	    "processed 13 insns (limit 1000000) max_states_per_insn 0 total_states 1 "
	    "peak_states 1 mark_read 1\n");
	assert_string_equal(libbpf_messages_refusal(),
			    "on_perf_event: R2 unbounded memory access, make sure to bounds check "
			    "any such access");
	libbpf_messages_forget_refusal();
	assert_string_equal(libbpf_messages_refusal(), "");
}

static void test_statistics_alone_and_other_messages_leave_none(void **state)
{
	(void)state;
	libbpf_messages_show(false);
	libbpf_messages_forget_refusal();
	say(LIBBPF_WARN, "libbpf: failed to load object '%s'\n", "sampler_bpf");
	say(LIBBPF_DEBUG, "prog '%s': -- BEGIN PROG LOAD LOG -- as text\n", "x");
	assert_string_equal(libbpf_messages_refusal(), "");
	say(LIBBPF_WARN, LOAD_LOG_FORMAT, "on_tracepoint",
	    "verification time 10 usec\nstack depth 8\nprocessed 2 insns (limit 1000000)\n");
	assert_string_equal(libbpf_messages_refusal(), "");
}

/* A log longer than the line kept: its last line, cut to fit. */
static void test_long_log_keeps_its_last_line(void **state)
{
	static char log[1 << 20];
	size_t at = 0;

	(void)state;
	while (at + 64 < sizeof(log) - 4096)
		at += (size_t)snprintf(log + at, sizeof(log) - at, "%zu: (b7) r1 = 0\n", at);
	at += (size_t)snprintf(log + at, sizeof(log) - at, "BPF program is too large. ");
	memset(log + at, 'x', 2000);
	at += 2000;
	snprintf(log + at, sizeof(log) - at, "\nprocessed 1000001 insns\n");
	libbpf_messages_show(false);
	libbpf_messages_forget_refusal();
	say(LIBBPF_WARN, LOAD_LOG_FORMAT, "on_uprobe", log);
	assert_true(!strncmp(libbpf_messages_refusal(), "on_uprobe: BPF program is too large. xxx",
			     40));
	assert_true(strlen(libbpf_messages_refusal()) < 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal_is_the_last_line_before_the_statistics),
		cmocka_unit_test(test_statistics_alone_and_other_messages_leave_none),
		cmocka_unit_test(test_long_log_keeps_its_last_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
