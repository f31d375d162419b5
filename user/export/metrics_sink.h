/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_sink.h: record --metrics: a sink of the recording that serves its
 * metrics while it records: CPU time per cgroup and comm summed from the very
 * samples drained, its counts and ring fill, and the run-queue histogram. */
#ifndef RINGTRACE_METRICS_SINK_H
#define RINGTRACE_METRICS_SINK_H

#include <stddef.h>

#include "capture/record_sink.h"

/* Binds listen at once (a port in use is an error before the recording
 * starts; a port below 1024 needs the capabilities not yet dropped) and serves
 * http://listen/metrics once started; top_comms comms are named, the rest
 * summed as "other". The samples must carry their cgroup. NULL with err set. */
struct record_sink *metrics_sink_create(const char *listen, unsigned int top_comms, char *err,
					size_t errlen);

#endif
