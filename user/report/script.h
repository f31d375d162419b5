/* SPDX-License-Identifier: GPL-2.0-only */
/* script.h: "ringtrace script": every sample and LOST record of a recording,
 * one per line in time order across CPUs, in perf script's default format. */
#ifndef RINGTRACE_SCRIPT_H
#define RINGTRACE_SCRIPT_H

#include <stddef.h>
#include <stdio.h>

struct script_options {
	const char *input;
	const char *kallsyms; /* kernel symbols, normally /proc/kallsyms */
	const char *symfs;    /* binaries are looked for under this directory, or NULL: / */
};

/* 0, or -1 with err set (unreadable or malformed input: file and offset). */
int script_run(const struct script_options *o, FILE *out, char *err, size_t errlen);

#endif
