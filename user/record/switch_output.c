/* SPDX-License-Identifier: GPL-2.0-only */
/* switch_output.c: --switch-output's, --switch-max-files' and --max-size's
 * values read as perf record reads them, and the timestamped output names. */
#include "record/switch_output.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

struct unit {
	char tag;
	uint64_t mult;
};

/* A whole number and one of units, its tag in that case, as perf's
 * parse_tag_value reads it; false if text is not that or overflows. */
static bool parse_tagged(const char *text, const struct unit *units, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!text || !isdigit((unsigned char)text[0]))
		return false;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return false;
	if (!*end || end[1])
		return false;
	for (const struct unit *u = units; u->tag; u++)
		if (*end == u->tag) {
			if (v > UINT64_MAX / u->mult)
				return false;
			*out = v * u->mult;
			return true;
		}
	return false;
}

static const struct unit size_units[] = {
	{ 'B', 1 }, { 'K', 1ULL << 10 }, { 'M', 1ULL << 20 }, { 'G', 1ULL << 30 }, { 0, 0 },
};

static const struct unit time_units[] = {
	{ 's', 1000000000ULL }, { 'm', 60ULL * 1000000000ULL }, { 'h', 3600ULL * 1000000000ULL },
	{ 'd', 86400ULL * 1000000000ULL }, { 0, 0 },
};

int switch_output_parse(const char *text, struct switch_output_spec *out, char *err,
			size_t errlen)
{
	uint64_t v;
	size_t n = text ? strlen(text) : 0;

	memset(out, 0, sizeof(*out));
	if (!text || !strcmp(text, "signal")) {
		out->mode = SWITCH_OUTPUT_SIGNAL;
		return 0;
	}
	/* as perf: sizes in upper case (5M: 5 MiB), times in lower (5m: 5 minutes) */
	if (parse_tagged(text, size_units, &v)) {
		if (v < SWITCH_OUTPUT_MIN_BYTES || v > SWITCH_OUTPUT_MAX_BYTES) {
			rt_format(err, errlen, "invalid --switch-output size \"%s\": give %" PRIu64
				  " bytes (4K) or more, up to 1024T", text,
				  (uint64_t)SWITCH_OUTPUT_MIN_BYTES);
			return -EINVAL;
		}
		out->mode = SWITCH_OUTPUT_SIZE;
		out->bytes = v;
		return 0;
	}
	if (parse_tagged(text, time_units, &v)) {
		if (v < SWITCH_OUTPUT_MIN_NS || v > SWITCH_OUTPUT_MAX_NS) {
			rt_format(err, errlen, "invalid --switch-output time \"%s\": give 1s or more, "
				  "up to 366d", text);
			return -EINVAL;
		}
		out->mode = SWITCH_OUTPUT_TIME;
		out->ns = v;
		return 0;
	}
	rt_format(err, errlen, "invalid --switch-output \"%.*s\": give signal (switch on SIGUSR2), "
		  "a size with B, K, M or G (100M) or a time with s, m, h or d (30s, 5m)",
		  (int)(n > 64 ? 64 : n), text);
	return -EINVAL;
}

int switch_output_parse_size(const char *option, const char *text, uint64_t *out, char *err,
			     size_t errlen)
{
	if (!parse_tagged(text, size_units, out) || *out < SWITCH_OUTPUT_MIN_BYTES ||
	    *out > SWITCH_OUTPUT_MAX_BYTES) {
		rt_format(err, errlen, "invalid size \"%s\" for %s: give a number with B, K, M or "
			  "G, 4K or more (e.g. 100M)", text ? text : "", option);
		return -EINVAL;
	}
	return 0;
}

int switch_output_name(char *buf, size_t len, const char *base, const struct timespec *now)
{
	struct tm tm;
	char stamp[32];
	int n;

	if (!localtime_r(&now->tv_sec, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm))
		return -EINVAL;
	n = snprintf(buf, len, "%s.%s%02u", base, stamp, (unsigned int)(now->tv_nsec / 10000000L));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
