/* SPDX-License-Identifier: GPL-2.0-only */
/* log.h: how ringtrace tells the user something went wrong: one line on stderr,
 * prefixed with the program name, naming the cause and, where known, the fix. */
#ifndef RINGTRACE_LOG_H
#define RINGTRACE_LOG_H

#include <stdarg.h>

/* "ringtrace: <message>\n" on stderr. */
void rt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ringtrace: warning: <message>\n" on stderr. */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress and summaries that are not errors, on stderr. */
void rt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats into a caller's buffer (for modules that report errors upwards).
 * All four functions leave errno as they found it, so that a caller can return
 * -errno after telling what failed. */
void rt_format(char *buf, unsigned long len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
