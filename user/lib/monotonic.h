/* SPDX-License-Identifier: GPL-2.0-only */
/* monotonic.h: the time of CLOCK_MONOTONIC, for intervals and deadlines. */
#ifndef RINGTRACE_MONOTONIC_H
#define RINGTRACE_MONOTONIC_H

/* CLOCK_MONOTONIC now, in seconds. */
double monotonic_seconds(void);

#endif
