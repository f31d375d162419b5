/* SPDX-License-Identifier: GPL-2.0-only */
/* log.c: one-line messages on stderr for errors, warnings and progress,
 * so every failure reaches the user the same way. */
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>

static void vprint(const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];
	int saved = errno;

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "ringtrace: %s%s\n", prefix, line);
	errno = saved;
}

void rt_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("", fmt, ap);
	va_end(ap);
}

void rt_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("warning: ", fmt, ap);
	va_end(ap);
}

void rt_info(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	errno = saved;
}

void rt_format(char *buf, unsigned long len, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	errno = saved;
}
