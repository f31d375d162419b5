/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_freq.c: the check of a sampling frequency (-F), which record and
 * export take alike: a number the kernel's perf_event_max_sample_rate allows. */
#include <errno.h>
#include <inttypes.h>

#include "capture/perf_events.h"
#include "cli/command_options.h"
#include "lib/log.h"
#include "lib/option_values.h"

int parse_sample_freq(const char *text, uint64_t *freq)
{
	uint64_t v, limit;
	int r;

	if ((r = option_parse_u64("-F", text, 1, 1000000, &v)))
		return r;
	limit = perf_max_sample_rate();
	if (limit && v > limit) {
		rt_error("-F %" PRIu64 " is above the kernel's limit, kernel.perf_event_max_sample_rate = %" PRIu64
			 " (the kernel lowers it when samples take long): give -F %" PRIu64
			 " or less, or raise the sysctl", v, limit, limit);
		return -EINVAL;
	}
	*freq = v;
	return 0;
}
