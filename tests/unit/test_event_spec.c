/* SPDX-License-Identifier: GPL-2.0-only */
/* test_event_spec.c: "-e" parsing (names, aliases, modifiers, tracepoints,
 * user probes, errors) and tracepoint formats (parsed, and the probes'). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "capture/event_spec.h"
#include "format/probe_format.h"
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

	assert_true(event_spec_parse(spec, ev, &nr, err, sizeof(err)) < 0);
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
	assert_int_equal(tracefs_parse_format("name: x\nformat:\n", &f), -EINVAL);
}

static void test_user_probe_specs(void **state)
{
	struct event_desc ev[EVENT_SPEC_MAX];
	unsigned int nr = 0;
	char err[256];

	(void)state;
	assert_int_equal(event_spec_parse("uprobe:/bin/x:main+0x10,uretprobe:libc:malloc", ev, &nr,
					  err, sizeof(err)), 0);
	assert_int_equal(event_spec_parse("usdt:/a:b/python3.11:python:function__entry", ev, &nr,
					  err, sizeof(err)), 0);
	assert_int_equal(nr, 3);
	assert_int_equal(ev[0].kind, EVENT_UPROBE);
	assert_int_equal(ev[0].type, PERF_TYPE_TRACEPOINT);
	assert_string_equal(ev[0].probe.binary, "/bin/x");
	assert_string_equal(ev[0].probe.func, "main");
	assert_int_equal(ev[0].probe.offset, 16);
	assert_int_equal(ev[1].kind, EVENT_URETPROBE);
	assert_string_equal(ev[1].probe.binary, "libc");
	assert_string_equal(ev[1].probe.func, "malloc");
	assert_int_equal(ev[2].kind, EVENT_USDT);
	/* the binary keeps its colons: provider and name are the last parts */
	assert_string_equal(ev[2].probe.binary, "/a:b/python3.11");
	assert_string_equal(ev[2].probe.provider, "python");
	assert_string_equal(ev[2].probe.probe, "function__entry");
	assert_true(event_is_user_probe(&ev[2]));
	expect_parse_error("uprobe:onlyone", "give uprobe:BINARY:FUNC[+OFFSET]");
	expect_parse_error("uretprobe:/bin/x:main+4", "give uretprobe:BINARY:FUNC");
	expect_parse_error("usdt:/bin/x:name", "give usdt:BINARY:PROVIDER:NAME");
	expect_parse_error("uprobe:/bin/x:main+zz", "invalid probe");
	expect_parse_error("uprobe:/bin/x:", "invalid probe");
}

/* A probe's format reads back as the kernel's: its fixed size is its record's. */
static void test_probe_formats(void **state)
{
	struct probe_format usdt = { .name = "function__entry", .id = 65535, .nr_args = 3,
				     .arg_signed = 4, .args_decimal = true };
	struct probe_format ret = { .name = "malloc__return", .id = 65534, .retprobe = true,
				    .nr_args = 1 };
	struct tracepoint_format parsed;
	struct byte_buffer b = { 0 };

	(void)state;
	assert_int_equal(probe_format_text(&b, &usdt), 0);
	byte_buffer_append(&b, "", 1);
	assert_int_equal(tracefs_parse_format((const char *)b.data, &parsed), 0);
	assert_int_equal(parsed.id, 65535);
	assert_int_equal(parsed.fixed_size, probe_format_size(&usdt));
	assert_int_equal(parsed.fixed_size, 8 + 8 + 3 * 8);
	assert_non_null(strstr((const char *)b.data, "\tfield:s64 arg3;\toffset:32;\tsize:8;\tsigned:1;\n"));
	assert_non_null(strstr((const char *)b.data,
			       "print fmt: \"(%lx) arg1=%Lu arg2=%Lu arg3=%Ld\", REC->__probe_ip, REC->arg1, REC->arg2, REC->arg3\n"));
	byte_buffer_free(&b);
	assert_int_equal(probe_format_text(&b, &ret), 0);
	byte_buffer_append(&b, "", 1);
	assert_int_equal(tracefs_parse_format((const char *)b.data, &parsed), 0);
	assert_int_equal(parsed.fixed_size, 8 + 16 + 8);
	assert_non_null(strstr((const char *)b.data,
			       "print fmt: \"(%lx <- %lx) ret=0x%Lx\", REC->__probe_func, REC->__probe_ret_ip, REC->ret\n"));
	byte_buffer_free(&b);
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
	assert_int_equal(cpu_list_parse(&l, "3-1", 8, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "malformed"));
	assert_int_equal(cpu_list_parse(&l, "8", 8, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(cpu_list_parse(&l, "1;2", 8, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpu_list_parse(&l, "", 8, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_aliases_and_modifiers),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_format_fixed_size_and_dynamic_fields),
		cmocka_unit_test(test_user_probe_specs),
		cmocka_unit_test(test_probe_formats),
		cmocka_unit_test(test_cpu_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
