/* SPDX-License-Identifier: GPL-2.0-only */
/* offcpu_totals.h: the line record --off-cpu adds to the totals: blocks timed and
 * sampled, those too short, and every one not timed, by reason. */
#ifndef RINGTRACE_OFFCPU_TOTALS_H
#define RINGTRACE_OFFCPU_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"

/* Prints it, if the sampler runs the off-CPU program. */
void offcpu_print_totals(const struct bpf_sampler *s, uint64_t min_ns, bool verbose);

#endif
