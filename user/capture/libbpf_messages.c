/* SPDX-License-Identifier: GPL-2.0-only */
/* libbpf_messages.c: whether libbpf's own messages reach stderr: never but at
 * -vv, from the start of every command (main's first call; a failure is said
 * in ringtrace's line). */
#include "capture/libbpf_messages.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>

static bool shown;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return shown ? vfprintf(stderr, fmt, ap) : 0;
}

void libbpf_messages_show(bool show)
{
	shown = show;
	libbpf_set_print(print_libbpf);
}

bool libbpf_messages_shown(void)
{
	return shown;
}
