/* SPDX-License-Identifier: GPL-2.0-only */
/* monotonic.h: the time of CLOCK_MONOTONIC, for intervals and deadlines. */
#ifndef RINGTRACE_MONOTONIC_H
#define RINGTRACE_MONOTONIC_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in seconds. */
double monotonic_seconds(void);
/* The same in ns: the clock perf records are stamped with (attr.clockid). */
uint64_t monotonic_ns(void);

#endif
