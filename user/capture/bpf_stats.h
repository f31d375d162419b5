/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_stats.h: run counts and run times of a BPF object's programs, which the
 * kernel keeps while kernel.bpf_stats_enabled is 1. */
#ifndef RINGTRACE_BPF_STATS_H
#define RINGTRACE_BPF_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "capture/capture_counts.h"

struct bpf_object;

/* Whether kernel.bpf_stats_enabled is on. */
bool bpf_stats_enabled(void);
/* Appends the loaded programs of obj to out (at most max); returns how many. */
size_t bpf_stats_read(struct bpf_object *obj, struct bpf_program_runs *out, size_t max);
/* One line each for the programs of runs that ran: their runs and the
 * average time of one (the kernel counts every run: a perf event's program
 * runs for each event, in scope or not). */
void bpf_stats_print(const struct bpf_program_runs *runs, size_t n);

#endif
