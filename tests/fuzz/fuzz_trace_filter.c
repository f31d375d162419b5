/* SPDX-License-Identifier: GPL-2.0-only */
/* fuzz_trace_filter.c: libFuzzer target for record --filter's compiler
 * (capture/trace_filter.c) and the steps the BPF side runs its output by
 * (bpf/filter_program.h). The input is EXPR, then optionally a NUL and a
 * tracepoint record (else a record of zeros): EXPR is compiled against the
 * formats of five tracepoints (four this machine's kernel wrote, one made
 * up for the fields they lack: __rel_loc, an array of numbers, odd sizes,
 * a field past what a filter reads) and run over the record.
 *
 * Nothing may crash or leak; a refusal says one line; a compiled filter
 * jumps forward only, to a comparison it has or to a verdict, compares
 * strings with == and != alone, and reads within its record; its verdict
 * is decided within the BPF side's steps, and "!(EXPR)" decides the
 * opposite. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture/trace_filter.h"

/* Each field of each format as tracefs wrote it (its tabs included). */
static const char *const tf_formats[][2] = {
	{ "sched:sched_switch",
	  "name: sched_switch\nID: 372\nformat:\n"
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
	  "\n"
	  "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d ==> next_comm=%s next_pid=%d "
	  "next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, REC->next_comm, "
	  "REC->next_pid, REC->next_prio\n" },
	{ "sched:sched_process_exec",
	  "name: sched_process_exec\nID: 365\nformat:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	  "REC->old_pid\n" },
	{ "syscalls:sys_enter_openat",
	  "name: sys_enter_openat\nID: 782\nformat:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, flags: 0x%08lx, mode: 0x%08lx\", "
	  "((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), "
	  "((unsigned long)(REC->flags)), ((unsigned long)(REC->mode))\n" },
	{ "raw_syscalls:sys_enter",
	  "name: sys_enter\nID: 443\nformat:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
	  "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)\", REC->id, REC->args[0], "
	  "REC->args[1], REC->args[2], REC->args[3], REC->args[4], REC->args[5]\n" },
	{ "fuzz:made_up",
	  "name: made_up\nID: 9999\nformat:\n"
	  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "\tfield:__rel_loc char[] note;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc unsigned long[] ips;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:s8 small;\toffset:16;\tsize:1;\tsigned:1;\n"
	  "\tfield:u16 word;\toffset:18;\tsize:2;\tsigned:0;\n"
	  "\tfield:u8 odd[3];\toffset:20;\tsize:3;\tsigned:0;\n"
	  "\tfield:u8 three;\toffset:24;\tsize:3;\tsigned:0;\n"
	  "\tfield:unsigned char label[8];\toffset:28;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 far;\toffset:4090;\tsize:8;\tsigned:0;\n"
	  "\tfield:char tail[6];\toffset:4090;\tsize:6;\tsigned:0;\n"
	  "\tfield:u32 edge;\toffset:4092;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"note=%s\", __get_rel_str(note)\n" },
};

#define TF_NR_FORMATS (sizeof(tf_formats) / sizeof(tf_formats[0]))

/* A string field's bytes as the BPF side copies them (filter_fetch_string):
 * pointers are not followed (an unreadable string is empty), comm is ours. */
static uint32_t tf_fetch(const struct rt_filter_pred *p, const uint8_t *rec, uint32_t rec_size,
			 char *str)
{
	uint32_t start, max, n;

	str[0] = 0;
	if (p->operand == RT_FILTER_COMM) {
		strcpy(str, "fuzz");
		return 4;
	}
	if (p->operand == RT_FILTER_KERNEL_STRING || p->operand == RT_FILTER_USER_STRING ||
	    rt_filter_string_at(p, rec, rec_size, &start, &max))
		return 0;
	if (start + max > RT_FILTER_RECORD_BYTES)
		abort(); /* the string lies past the record */
	for (n = 0; n < max && n < RT_FILTER_STRING_BYTES - 2 && rec[start + n]; n++)
		str[n] = (char)rec[start + n];
	str[n] = 0;
	return n;
}

/* f's verdict on rec: 1 kept, 0 left out, -1 undecided within the steps
 * (the BPF side keeps the hit and counts it). */
static int tf_run(const struct rt_filter *f, const uint8_t *rec, uint32_t rec_size)
{
	uint32_t pc = 0, steps = 0;

	while (steps++ < RT_FILTER_MAX_STEPS) {
		const struct rt_filter_pred *p;
		char str[RT_FILTER_STRING_BYTES];
		struct rt_filter_glob g;
		int holds;

		if (pc == RT_FILTER_ACCEPT)
			return 1;
		if (pc == RT_FILTER_REJECT)
			return 0;
		if (pc >= f->nr_preds)
			abort(); /* ran off the filter's end */
		p = &f->pred[pc];
		if (!rt_filter_is_string(p->operand)) {
			holds = rt_filter_compare(p, p->operand == RT_FILTER_ON_CPU
							     ? 1
							     : rt_filter_number(p, rec, rec_size));
		} else {
			rt_filter_glob_start(&g, p, tf_fetch(p, rec, rec_size, str));
			while ((holds = rt_filter_glob_step(&g, p, str, f->pattern[pc])) < 0)
				if (steps++ >= RT_FILTER_MAX_STEPS)
					return -1;
			holds ^= p->cmp == RT_FILTER_NE;
		}
		pc = rt_filter_next(p, holds);
	}
	return -1;
}

/* What a compiled filter promises the BPF side. */
static void tf_check(const struct rt_filter *f)
{
	if (f->nr_preds == 0 || f->nr_preds > RT_FILTER_MAX_PREDS)
		abort();
	for (uint32_t i = 0; i < f->nr_preds; i++) {
		const struct rt_filter_pred *p = &f->pred[i];
		const uint8_t to[2] = { p->on_true, p->on_false };

		for (int k = 0; k < 2; k++)
			if (to[k] != RT_FILTER_ACCEPT && to[k] != RT_FILTER_REJECT &&
			    (to[k] <= i || to[k] >= f->nr_preds))
				abort(); /* a jump back, or past the end */
		if (p->operand > RT_FILTER_COMM || p->cmp > RT_FILTER_BAND)
			abort();
		if (rt_filter_is_string(p->operand)) {
			if (p->cmp > RT_FILTER_NE || p->pattern_len >= RT_FILTER_PATTERN_BYTES ||
			    (p->pattern_len < 64 && p->value >> p->pattern_len))
				abort(); /* a wildcard past the pattern */
		} else if (p->operand != RT_FILTER_ON_CPU &&
			   p->size != 1 && p->size != 2 && p->size != 4 && p->size != 8) {
			abort();
		}
		if (p->operand != RT_FILTER_ON_CPU && p->operand != RT_FILTER_COMM &&
		    (uint32_t)p->offset + p->size > RT_FILTER_RECORD_BYTES)
			abort(); /* reads past the record */
	}
}

static void tf_check_refusal(int r, const char *err)
{
	if ((r != -EINVAL && r != -E2BIG) || !err[0] || strchr(err, '\n'))
		abort(); /* one line, naming the fault */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t rec[RT_FILTER_RECORD_BYTES];
	const uint8_t *nul = memchr(data, 0, size);
	size_t expr_len = nul ? (size_t)(nul - data) : size;
	uint32_t rec_size = 0;
	char *expr = malloc(expr_len + 1), *negated = malloc(expr_len + 4), err[512];
	struct rt_filter f, g;

	if (!expr || !negated)
		goto out;
	memcpy(expr, data, expr_len);
	expr[expr_len] = 0;
	snprintf(negated, expr_len + 4, "!(%s)", expr);
	memset(rec, 0, sizeof(rec));
	if (nul) {
		rec_size = (uint32_t)(size - expr_len - 1 < sizeof(rec) ? size - expr_len - 1
									: sizeof(rec));
		memcpy(rec, nul + 1, rec_size);
	} else {
		rec_size = 64;
	}
	for (size_t i = 0; i < TF_NR_FORMATS; i++) {
		int r, verdict, opposite;

		err[0] = 0;
		r = trace_filter_compile(expr, tf_formats[i][1], tf_formats[i][0], &f, err,
					 sizeof(err));
		if (r) {
			tf_check_refusal(r, err);
			continue;
		}
		tf_check(&f);
		verdict = tf_run(&f, rec, rec_size);
		err[0] = 0;
		r = trace_filter_compile(negated, tf_formats[i][1], tf_formats[i][0], &g, err,
					 sizeof(err));
		if (r) { /* one ! or ( too many for its bounds */
			tf_check_refusal(r, err);
			continue;
		}
		tf_check(&g);
		opposite = tf_run(&g, rec, rec_size);
		if (verdict >= 0 && opposite >= 0 && verdict == opposite)
			abort(); /* !(EXPR) decided as EXPR did */
	}
out:
	free(expr);
	free(negated);
	return 0;
}
