/* SPDX-License-Identifier: GPL-2.0-only */
/* switch_output.h: what --switch-output, --switch-max-files and --max-size
 * mean, as perf record reads them, and the name each output is given. */
#ifndef RINGTRACE_SWITCH_OUTPUT_H
#define RINGTRACE_SWITCH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum switch_output_mode {
	SWITCH_OUTPUT_NONE = 0,
	SWITCH_OUTPUT_SIGNAL, /* on SIGUSR2 */
	SWITCH_OUTPUT_SIZE,   /* once the output holds bytes */
	SWITCH_OUTPUT_TIME,   /* every ns */
};

struct switch_output_spec {
	enum switch_output_mode mode;
	uint64_t bytes; /* SWITCH_OUTPUT_SIZE */
	uint64_t ns;    /* SWITCH_OUTPUT_TIME */
};

/* The smallest --switch-output size and time, and the largest of each. */
#define SWITCH_OUTPUT_MIN_BYTES 4096ULL
#define SWITCH_OUTPUT_MAX_BYTES (1ULL << 50)
#define SWITCH_OUTPUT_MIN_NS 1000000000ULL
#define SWITCH_OUTPUT_MAX_NS (366ULL * 86400 * 1000000000ULL)
/* The most outputs --switch-max-files keeps. */
#define SWITCH_OUTPUT_MAX_FILES 100000

/* "signal" (NULL too: perf's default), a size with perf's units B, K, M or G
 * ("100K", "1M", "1G"), or a time with s, m, h or d ("30s", "5m", "1h"): as
 * perf, a unit is needed and its case tells sizes from times. 0, or -EINVAL with err set to one line naming the
 * cause and the fix. */
int switch_output_parse(const char *text, struct switch_output_spec *out, char *err,
			size_t errlen);

/* --max-size: a size as --switch-output's (perf's B, K, M, G). 0 or -EINVAL
 * with err set. */
int switch_output_parse_size(const char *option, const char *text, uint64_t *out, char *err,
			     size_t errlen);

/* base and perf's suffix for an output switched at now (local time):
 * "base.YYYYmmddHHMMSSCC", CC the hundredths of the second, as perf's
 * record__switch_output names perf.data.2015122520103046. 0, or -ENAMETOOLONG
 * / -EINVAL. */
int switch_output_name(char *buf, size_t len, const char *base, const struct timespec *now);

#endif
