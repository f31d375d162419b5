/* cli_util.c: strict parsing of numeric command-line values, shared by the
 * subcommands so every bad value gets the same kind of one-line error. */
#include "cli/cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

int cli_parse_u64(const char *option, const char *text, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!text || !isdigit((unsigned char)text[0])) {
		rt_error("invalid value \"%s\" for %s: expected a number from %" PRIu64 " to %" PRIu64,
			 text ? text : "", option, min, max);
		return -1;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || *end || v < min || v > max) {
		rt_error("invalid value \"%s\" for %s: expected a number from %" PRIu64 " to %" PRIu64,
			 text, option, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_size(const char *option, const char *text, uint64_t min, uint64_t max,
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
	return -1;
}

const char *cli_rejected_option(char **argv)
{
	static char shortopt[3];
	const char *last = optind > 0 ? argv[optind - 1] : "";

	if (!strncmp(last, "--", 2))
		return last;
	if (optopt) {
		snprintf(shortopt, sizeof(shortopt), "-%c", optopt);
		return shortopt;
	}
	return argv[optind - 1];
}
