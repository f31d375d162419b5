/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics_agent.h: what the agent itself costs, rendered: the exporter's
 * process_* (as the Prometheus client libraries name them), export -g's
 * sampling child (CPU, memory, samples and losses) and the symbol tables
 * its profiles keep. */
#ifndef RINGTRACE_METRICS_AGENT_H
#define RINGTRACE_METRICS_AGENT_H

#include "export/metrics.h"

/* Appends those of m it holds. 0, or -1 if memory ran out. */
int metrics_render_agent(struct byte_buffer *out, const struct metrics_snapshot *m);

#endif
