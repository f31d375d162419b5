/* SPDX-License-Identifier: GPL-2.0-only */
/* test_event_spec.c: "-e" parsing (names, aliases, modifiers, tracepoints,
 * errors) and tracepoint format parsing (fixed size, dynamic fields). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <string.h>

#include "capture/event_spec.h"
#include "sys/cpu_list.h"
#include "sys/tracefs.h"

static void test_names_aliases_and_modifiers(void **state)
{
	struct event_desc ev[EVENT_SPEC_MAX];
	unsigned int nr = 0;
	char err[256];

	(void)state;
	assert_int_equal(event_spec_parse("cpu-clock,faults,cs:u", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(event_spec_parse("sched:sched_switch", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(nr, 4);
	assert_int_equal(ev[0].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(ev[0].config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(ev[1].name, "faults");
	assert_int_equal(ev[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(ev[2].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_true(ev[2].exclude_kernel);
	assert_false(ev[2].exclude_user);
	assert_int_equal(ev[3].kind, EVENT_TRACEPOINT);
	assert_string_equal(ev[3].system, "sched");
	assert_string_equal(ev[3].tracepoint, "sched_switch");
	nr = 0;
	assert_int_equal(event_spec_parse("cycles:k", ev, &nr, err, sizeof(err)), 0);
	assert_int_equal(ev[0].kind, EVENT_HARDWARE);
	assert_true(ev[0].exclude_user);
}

static void expect_parse_error(const char *spec, const char *needle)
{
	struct event_desc ev[EVENT_SPEC_MAX];
	unsigned int nr = 0;
	char err[256] = "";

	assert_int_equal(event_spec_parse(spec, ev, &nr, err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("parsing \"%s\": error \"%s\" lacks \"%s\"", spec, err, needle);
}

static void test_bad_specs(void **state)
{
	(void)state;
	expect_parse_error("", "empty event list");
	expect_parse_error("cpu-clock,,page-faults", "empty event name");
	expect_parse_error("not-an-event", "unknown event \"not-an-event\"");
	expect_parse_error("cpu-clock:q", "unknown modifier 'q'");
	expect_parse_error("sched:", "unknown event");
	expect_parse_error(":sched_switch", "unknown event");
	expect_parse_error("sched:../../etc", "unknown event");
	expect_parse_error("task-clock,task-clock", "given twice");
}

static void test_format_fixed_size_and_dynamic_fields(void **state)
{
	static const char text[] =
		"name: sched_process_exec\n"
		"ID: 318\n"
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\n"
		"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:__rel_loc char[] extra;\toffset:16;\tsize:4;\tsigned:0;\n"
		"\tfield:pid_t old_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
		"\n"
		"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";
	struct tracepoint_format f;

	(void)state;
	assert_int_equal(tracefs_parse_format(text, &f), 0);
	assert_int_equal(f.id, 318);
	assert_int_equal(f.fixed_size, 24);
	assert_int_equal(f.nr_dynamic, 2);
	assert_int_equal(f.dynamic_offset[0], 8);
	assert_false(f.dynamic_relative[0]);
	assert_int_equal(f.dynamic_offset[1], 16);
	assert_true(f.dynamic_relative[1]);
	assert_int_equal(tracefs_parse_format("name: x\nformat:\n", &f), -1);
}

static void test_cpu_lists(void **state)
{
	struct cpu_list l;
	char err[256];

	(void)state;
	assert_int_equal(cpu_list_parse(&l, "0,2-3,7", 8, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 4);
	assert_int_equal(l.cpus[0], 0);
	assert_int_equal(l.cpus[1], 2);
	assert_int_equal(l.cpus[2], 3);
	assert_int_equal(l.cpus[3], 7);
	cpu_list_free(&l);
	assert_int_equal(cpu_list_parse(&l, "3,1-2,2", 8, err, sizeof(err)), 0);
	assert_int_equal(l.nr, 3);
	cpu_list_free(&l);
	assert_int_equal(cpu_list_parse(&l, "3-1", 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "malformed"));
	assert_int_equal(cpu_list_parse(&l, "8", 8, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(cpu_list_parse(&l, "1;2", 8, err, sizeof(err)), -1);
	assert_int_equal(cpu_list_parse(&l, "", 8, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_aliases_and_modifiers),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_format_fixed_size_and_dynamic_fields),
		cmocka_unit_test(test_cpu_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
