/* SPDX-License-Identifier: GPL-2.0-only */
/* libbpf_messages.c: whether libbpf's own messages reach stderr: never but at
 * -vv, from the start of every command (main's first call; a failure is said
 * in ringtrace's line); and the verifier's word on the last program it
 * refused, from the log libbpf prints of it. */
#include "capture/libbpf_messages.h"

#include <bpf/libbpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How libbpf (1.1, as later) prints the log of a program the kernel refused */
#define LOAD_LOG_BEGIN "-- BEGIN PROG LOAD LOG --"

static bool shown;
static char refusal[1024];

/* Whether a line of a verifier's log is one of its statistics. */
static bool statistics_line(const char *line)
{
	return !strncmp(line, "verification time ", 18) || !strncmp(line, "stack depth ", 12) ||
	       !strncmp(line, "processed ", 10) || !strncmp(line, "-- END PROG LOAD LOG --", 23);
}

/* From libbpf's message "prog 'NAME': -- BEGIN PROG LOAD LOG --\nLOG-- END
 * PROG LOAD LOG --\n": "NAME: " and the log's last line that is not one of
 * its statistics (the verifier's reason; the lines before it are the path
 * that led there). */
static void keep_refusal(const char *msg)
{
	const char *name = strstr(msg, "prog '"), *log = strstr(msg, LOAD_LOG_BEGIN), *last = NULL;
	int name_len = 0, last_len = 0;

	if (!log)
		return;
	if (name && name < log) {
		name += strlen("prog '");
		name_len = (int)(strchrnul(name, '\'') - name);
	}
	for (const char *p = log + strlen(LOAD_LOG_BEGIN); *p;) {
		const char *end = strchrnul(p, '\n');

		if (end > p && !statistics_line(p)) {
			last = p;
			last_len = (int)(end - p);
		}
		p = *end ? end + 1 : end;
	}
	if (last)
		snprintf(refusal, sizeof(refusal), "%.*s%s%.*s", name_len, name ? name : "",
			 name_len ? ": " : "", last_len, last);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN && strstr(fmt, LOAD_LOG_BEGIN)) {
		va_list copy;
		char *msg;

		va_copy(copy, ap);
		if (vasprintf(&msg, fmt, copy) >= 0) {
			keep_refusal(msg);
			free(msg);
		}
		va_end(copy);
	}
	return shown ? vfprintf(stderr, fmt, ap) : 0;
}

const char *libbpf_messages_refusal(void)
{
	return refusal;
}

void libbpf_messages_forget_refusal(void)
{
	refusal[0] = '\0';
	/* (the messages through print_libbpf, shown or not, where no
	 * libbpf_messages_show came first: a test's loads) */
	libbpf_set_print(print_libbpf);
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
