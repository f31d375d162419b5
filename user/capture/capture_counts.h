/* SPDX-License-Identifier: GPL-2.0-only */
/* capture_counts.h: what a capture says about itself while it runs: records
 * per CPU, how full each ring is, how often and how long its BPF programs ran. */
#ifndef RINGTRACE_CAPTURE_COUNTS_H
#define RINGTRACE_CAPTURE_COUNTS_H

#include <stdint.h>

/* One CPU's records, for one transport. */
struct capture_cpu_counts {
	int cpu;
	uint64_t produced, lost, overwritten;
};

/* How full one ring is. */
struct capture_ring_fill {
	int cpu;          /* -1: the one ring of per-thread mode */
	const char *ring; /* "staging", "bpf", "perf" */
	uint64_t used, capacity;
};

/* A BPF program's runs, kept by the kernel while kernel.bpf_stats_enabled is 1. */
struct bpf_program_runs {
	const char *name;
	uint64_t runs;
	uint64_t run_ns;
};

#endif
