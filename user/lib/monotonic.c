/* SPDX-License-Identifier: GPL-2.0-only */
/* monotonic.c: the time of CLOCK_MONOTONIC, for intervals and deadlines. */
#include "lib/monotonic.h"

#include <time.h>

double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
