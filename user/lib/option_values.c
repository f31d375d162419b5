/* SPDX-License-Identifier: GPL-2.0-only */
/* option_values.c: strict parsing of numeric option values, shared by the
 * commands so every bad value gets the same kind of one-line error. */
#include "lib/option_values.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

int option_parse_u64(const char *option, const char *text, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0])) {
		rt_error("invalid value \"%s\" for %s: expected a number from %" PRIu64 " to %" PRIu64,
			 text ? text : "", option, min, max);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max) {
		rt_error("invalid value \"%s\" for %s: expected a number from %" PRIu64 " to %" PRIu64,
			 text, option, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int option_parse_percent(const char *option, const char *text, double *out)
{
	char *end;
	double v;

	if (!text || !(isdigit((unsigned char)text[0]) || text[0] == '.')) {
		rt_error("invalid value \"%s\" for %s: expected a percentage from 0 to 100",
			 text ? text : "", option);
		return -EINVAL;
	}
	v = strtod(text, &end);
	if (*end == '%')
		end++;
	if (*end || !(v >= 0 && v <= 100)) {
		rt_error("invalid value \"%s\" for %s: expected a percentage from 0 to 100", text,
			 option);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int option_parse_size(const char *option, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	errno = 0;
	v = text && isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
	if (!text || !isdigit((unsigned char)text[0]) || errno)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (max >> shift) || (v << shift) < min)
		goto bad;
	*out = v << shift;
	return 0;
bad:
	rt_error("invalid size \"%s\" for %s: expected bytes from %" PRIu64 " to %" PRIu64 " (K, M, G suffixes allowed)",
		 text ? text : "", option, min, max);
	return -EINVAL;
}

int option_parse_duration(const char *option, const char *text, uint64_t max_ns, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	char *end;
	unsigned long long v;

	errno = 0;
	v = text && isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
	if (!text || !isdigit((unsigned char)text[0]) || errno)
		goto bad;
	if (!*end && v == 0) {
		*out = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > max_ns / units[i].ns)
				goto bad;
			*out = v * units[i].ns;
			return 0;
		}
bad:
	rt_error("invalid duration \"%s\" for %s: expected a number and its unit (ns, us, ms, s), e.g. 500us or 1ms, at most %" PRIu64 " s",
		 text ? text : "", option, max_ns / 1000000000);
	return -EINVAL;
}
