/* SPDX-License-Identifier: GPL-2.0-only */
/* probe_format.c: the tracepoint format a user-space probe's samples are read
 * by (uprobe_events' layout), written into the recording's tracing data. */
#include "format/probe_format.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sample_record.h"

static int put(struct byte_buffer *b, const char *text)
{
	return byte_buffer_append(b, text, strlen(text)) ? 0 : -ENOMEM;
}

uint32_t probe_format_size(const struct probe_format *f)
{
	unsigned int head = f->retprobe ? RT_RETPROBE_HEAD_WORDS : RT_PROBE_HEAD_WORDS;

	return (uint32_t)(8 + 8 * (head + f->nr_args));
}

/* The word at field index i: its line, and its part of the print fmt. */
static int put_field(struct byte_buffer *b, const char *type, const char *name, unsigned int at,
		     bool is_signed)
{
	char line[160];

	snprintf(line, sizeof(line), "\tfield:%s %s;\toffset:%u;\tsize:8;\tsigned:%d;\n", type, name,
		 at, is_signed);
	return put(b, line);
}

int probe_format_text(struct byte_buffer *b, const struct probe_format *f)
{
	char line[160], fmt[512], args[1024], name[16];
	unsigned int at = 8;
	size_t fl, al;

	snprintf(line, sizeof(line), "name: %s\nID: %u\nformat:\n", f->name, f->id);
	if (put(b, line) ||
	    put(b, "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"))
		return -ENOMEM;
	if (f->retprobe) {
		if (put_field(b, "unsigned long", "__probe_func", at, false) ||
		    put_field(b, "unsigned long", "__probe_ret_ip", at + 8, false))
			return -ENOMEM;
		at += 16;
		snprintf(fmt, sizeof(fmt), "\"(%%lx <- %%lx)");
		snprintf(args, sizeof(args), ", REC->__probe_func, REC->__probe_ret_ip");
	} else {
		if (put_field(b, "unsigned long", "__probe_ip", at, false))
			return -ENOMEM;
		at += 8;
		snprintf(fmt, sizeof(fmt), "\"(%%lx)");
		snprintf(args, sizeof(args), ", REC->__probe_ip");
	}
	for (unsigned int i = 0; i < f->nr_args && i < RT_PROBE_MAX_ARGS; i++) {
		bool is_signed = (f->arg_signed >> i) & 1;

		if (f->retprobe)
			snprintf(name, sizeof(name), "ret");
		else
			snprintf(name, sizeof(name), "arg%u", i + 1);
		if (put_field(b, is_signed ? "s64" : "u64", name, at, is_signed))
			return -ENOMEM;
		at += 8;
		fl = strlen(fmt);
		al = strlen(args);
		snprintf(fmt + fl, sizeof(fmt) - fl, " %s=%s", name,
			 is_signed ? "%Ld" : f->args_decimal ? "%Lu" : "0x%Lx");
		snprintf(args + al, sizeof(args) - al, ", REC->%s", name);
	}
	fl = strlen(fmt);
	snprintf(fmt + fl, sizeof(fmt) - fl, "\"");
	return put(b, "\nprint fmt: ") || put(b, fmt) || put(b, args) || put(b, "\n") ? -ENOMEM : 0;
}
