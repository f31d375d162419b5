/* SPDX-License-Identifier: GPL-2.0-only */
/* test_trace_filter.c: --filter expressions compiled against a format and run
 * over records by the same steps the BPF side takes (bpf/filter_program.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture/trace_filter.h"
#include "sys/tracefs.h"

static const char sched_switch_format[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:64;\tsize:4;\tsigned:0;\n"
	"\tfield:u16 flags16;\toffset:68;\tsize:2;\tsigned:0;\n"
	"\n"
	"print fmt: \"prev_comm=%s\", REC->prev_comm\n";

struct record {
	uint8_t bytes[RT_FILTER_RECORD_BYTES];
	uint32_t size;
};

static void put(struct record *r, uint32_t off, const void *v, size_t n)
{
	memcpy(r->bytes + off, v, n);
}

/* A record of the format above; name's string after the fixed part. */
static void make_record(struct record *r, const char *prev_comm, int32_t prev_pid,
			int64_t prev_state, const char *name, uint16_t flags16)
{
	uint32_t loc = 72u | (uint32_t)(strlen(name) + 1) << 16;
	int32_t pid = 1234;

	memset(r, 0, sizeof(*r));
	put(r, 4, &pid, 4);
	strncpy((char *)r->bytes + 8, prev_comm, 16);
	put(r, 24, &prev_pid, 4);
	put(r, 32, &prev_state, 8);
	strncpy((char *)r->bytes + 40, "swapper/1", 16);
	put(r, 64, &loc, 4);
	put(r, 68, &flags16, 2);
	strcpy((char *)r->bytes + 72, name);
	r->size = 72 + (uint32_t)strlen(name) + 1;
}

/* What trace_filter.bpf.h's steps decide for r, with comm the task's. */
static int run(const struct rt_filter *f, const struct record *r, const char *comm, uint32_t cpu)
{
	uint32_t pc = 0, steps = 0;

	while (pc < f->nr_preds && steps++ < RT_FILTER_MAX_STEPS) {
		const struct rt_filter_pred *p = &f->pred[pc];
		char str[RT_FILTER_STRING_BYTES] = { 0 };
		struct rt_filter_glob g;
		uint32_t start, max;
		int holds;

		if (!rt_filter_is_string(p->operand)) {
			holds = rt_filter_compare(p, p->operand == RT_FILTER_ON_CPU
							     ? cpu
							     : rt_filter_number(p, r->bytes, r->size));
		} else {
			if (p->operand == RT_FILTER_COMM)
				snprintf(str, 16, "%s", comm);
			else if (!rt_filter_string_at(p, r->bytes, r->size, &start, &max))
				snprintf(str, max + 1 < sizeof(str) ? max + 1 : sizeof(str), "%s",
					 (const char *)r->bytes + start);
			rt_filter_glob_start(&g, p, (uint32_t)strlen(str));
			while ((holds = rt_filter_glob_step(&g, p, str, f->pattern[pc])) < 0)
				assert_true(steps++ < RT_FILTER_MAX_STEPS);
			holds ^= p->cmp == RT_FILTER_NE;
		}
		pc = rt_filter_next(p, holds);
		if (pc == RT_FILTER_ACCEPT)
			return 1;
		if (pc == RT_FILTER_REJECT)
			return 0;
	}
	fail_msg("the filter ran off its end at %u", pc);
	return -1;
}

static int filter_on(const char *expr, const struct record *r, const char *comm)
{
	struct rt_filter f;
	char err[512] = "";

	if (trace_filter_compile(expr, sched_switch_format, "sched:sched_switch", &f, err,
				 sizeof(err)))
		fail_msg("'%s' did not compile: %s", expr, err);
	return run(&f, r, comm, 1);
}

static void test_numbers_and_logic(void **state)
{
	struct record r;

	(void)state;
	make_record(&r, "bash", 42, 0, "x", 0x8001);
	assert_int_equal(filter_on("prev_state == 0", &r, "bash"), 1);
	assert_int_equal(filter_on("prev_state != 0", &r, "bash"), 0);
	assert_int_equal(filter_on("prev_pid > 41 && prev_pid <= 42", &r, "bash"), 1);
	assert_int_equal(filter_on("prev_pid < 0 || prev_pid >= 43 || common_pid == 1234", &r, "x"), 1);
	/* && before || */
	assert_int_equal(filter_on("prev_pid == 1 && prev_pid == 2 || prev_pid == 42", &r, "x"), 1);
	assert_int_equal(filter_on("prev_pid == 1 && (prev_pid == 2 || prev_pid == 42)", &r, "x"), 0);
	assert_int_equal(filter_on("!(prev_pid == 42)", &r, "x"), 0);
	assert_int_equal(filter_on("!!(prev_pid == 42) && !(prev_state & 1)", &r, "x"), 1);
	assert_int_equal(filter_on("flags16 & 0x8000", &r, "x"), 1);
	assert_int_equal(filter_on("flags16 & 0x10", &r, "x"), 0);
	assert_int_equal(filter_on("cpu == 1 && CPU < 2", &r, "x"), 1);
	/* signed: -1 is below 0; the value cut to the field's 32 bits */
	make_record(&r, "bash", -1, -5, "x", 0);
	assert_int_equal(filter_on("prev_pid < 0 && prev_state <= -5", &r, "x"), 1);
	assert_int_equal(filter_on("prev_pid == 0xffffffff", &r, "x"), 1);
	assert_int_equal(filter_on("prev_pid == 4294967295", &r, "x"), 1);
}

static void test_strings_and_globs(void **state)
{
	struct record r;

	(void)state;
	make_record(&r, "kworker/0:1", 7, 1, "/usr/bin/true", 0);
	assert_int_equal(filter_on("prev_comm == \"kworker/0:1\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm == \"kworker\"", &r, "x"), 0);
	assert_int_equal(filter_on("prev_comm == \"kworker*\"", &r, "x"), 0); /* == takes no glob */
	assert_int_equal(filter_on("prev_comm ~ \"kworker*\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm ~ \"*0:1\"", &r, "x"), 1);
	/* '*' then a literal: the end alone, in one pass */
	assert_int_equal(filter_on("prev_comm ~ \"*xkworker/0:1\"", &r, "x"), 0);
	assert_int_equal(filter_on("prev_comm ~ \"*worker/0:\"", &r, "x"), 0);
	assert_int_equal(filter_on("prev_comm ~ \"*\" && prev_comm ~ \"*kworker/0:1\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm ~ \"*er/*\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm ~ \"k?orker/?:1\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm ~ \"k*r*r/*1\"", &r, "x"), 1); /* backs up */
	assert_int_equal(filter_on("prev_comm ~ \"k*r*x*\"", &r, "x"), 0);
	assert_int_equal(filter_on("prev_comm != \"bash\"", &r, "x"), 1);
	assert_int_equal(filter_on("name ~ \"*/true\" && name != \"/bin/true\"", &r, "x"), 1);
	assert_int_equal(filter_on("name == '/usr/bin/true'", &r, "x"), 1);
	assert_int_equal(filter_on("comm ~ \"ba?h\" && COMM == \"bash\"", &r, "bash"), 1);
	make_record(&r, "a*b", 7, 1, "", 0);
	assert_int_equal(filter_on("prev_comm ~ \"a\\*b\"", &r, "x"), 1); /* escaped * */
	assert_int_equal(filter_on("prev_comm ~ \"a\\*c\"", &r, "x"), 0);
	assert_int_equal(filter_on("name == \"\" && prev_comm ~ \"*\"", &r, "x"), 1);
	/* a comm that fills its 16 bytes, no NUL */
	make_record(&r, "0123456789abcdef", 7, 1, "x", 0);
	assert_int_equal(filter_on("prev_comm == \"0123456789abcdef\"", &r, "x"), 1);
	assert_int_equal(filter_on("prev_comm ~ \"*def\"", &r, "x"), 1);
}

/* Jumps land on comparisons of the filter, or on its verdicts. */
static void test_layout(void **state)
{
	struct rt_filter f;
	char err[256];

	(void)state;
	assert_int_equal(trace_filter_compile("(prev_pid == 1 || prev_pid == 2) && !(next_pid == 3)",
					      sched_switch_format, "e", &f, err, sizeof(err)),
			 0);
	assert_int_equal(f.nr_preds, 3);
	assert_int_equal(f.pred[0].on_true, 2);
	assert_int_equal(f.pred[0].on_false, 1);
	assert_int_equal(f.pred[1].on_true, 2);
	assert_int_equal(f.pred[1].on_false, RT_FILTER_REJECT);
	assert_int_equal(f.pred[2].on_true, RT_FILTER_REJECT);
	assert_int_equal(f.pred[2].on_false, RT_FILTER_ACCEPT);
}

static void test_faults(void **state)
{
	struct rt_filter f;
	char err[512];

	(void)state;
	assert_int_equal(trace_filter_compile("prev_pid > 0 ) ", sched_switch_format, "e", &f, err,
					      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "at column 14"));
	assert_int_equal(trace_filter_compile("next_commm == \"a\"", sched_switch_format, "e", &f,
					      err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "did you mean next_comm?"));
	assert_int_equal(trace_filter_compile("prev_pid == -1", sched_switch_format, "e", &f, err,
					      sizeof(err)),
			 0);
	assert_int_equal(trace_filter_compile("flags16 == -1", sched_switch_format, "e", &f, err,
					      sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "unsigned"));
	assert_int_equal(trace_filter_compile("", sched_switch_format, "e", &f, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(trace_filter_compile("prev_comm == \"0123456789012345678901234567890123456789012345678901234567890123\"",
					      sched_switch_format, "e", &f, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "longer than 63 bytes"));
}

/* A filter written over lines (read from a file) compiles; its faults are
 * told on one line, the column still right (fuzz_trace_filter found the
 * newline of the expression quoted in the error). */
static void test_fault_in_lines(void **state)
{
	static const char expr[] = "prev_pid > 0 &&\n\tnext_comm ~ \"kworker*\"\n";
	struct rt_filter f;
	char err[512];

	(void)state;
	assert_int_equal(trace_filter_compile(expr, sched_switch_format, "e", &f, err, sizeof(err)), 0);
	assert_int_equal(trace_filter_compile("prev_pid > 0 &&\n\tnext_c == 1\r\n", sched_switch_format,
					      "e", &f, err, sizeof(err)),
			 -EINVAL);
	assert_null(strpbrk(err, "\n\r\t"));
	assert_non_null(strstr(err, "'prev_pid > 0 &&  next_c == 1  ' at column 18: no field next_c"));
	assert_int_equal(trace_filter_compile("prev_pid == 1 )\n|| x", sched_switch_format, "e", &f,
					      err, sizeof(err)),
			 -EINVAL);
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "at column 15: unexpected \") || x\""));
}

static void test_format_fields(void **state)
{
	struct tracepoint_field fl;

	(void)state;
	assert_int_equal(tracefs_format_field(sched_switch_format, "prev_comm", &fl), 0);
	assert_string_equal(fl.type, "char[16]");
	assert_int_equal(fl.offset, 8);
	assert_int_equal(fl.size, 16);
	assert_int_equal(tracefs_format_field(sched_switch_format, "name", &fl), 0);
	assert_string_equal(fl.type, "__data_loc char[]");
	assert_int_equal(tracefs_format_field(sched_switch_format, "prev_state", &fl), 0);
	assert_true(fl.is_signed);
	assert_int_equal(fl.size, 8);
	assert_int_equal(tracefs_format_field(sched_switch_format, "common_pid", &fl), 0);
	assert_int_equal(tracefs_format_field(sched_switch_format, "nope", &fl), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_and_logic), cmocka_unit_test(test_strings_and_globs),
		cmocka_unit_test(test_layout),		  cmocka_unit_test(test_faults),
		cmocka_unit_test(test_format_fields),	  cmocka_unit_test(test_fault_in_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
