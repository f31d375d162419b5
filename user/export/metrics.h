/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics.h: renders ringtrace's metrics in the Prometheus text exposition
 * format 0.0.4: one HELP/TYPE per family, families whole, label values escaped
 * and made valid UTF-8 with no control byte, equal series merged, a final
 * newline. */
#ifndef RINGTRACE_METRICS_H
#define RINGTRACE_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture_counts.h"
#include "lib/byte_buffer.h"
#include "symbols/symtab_cache.h"
#include "sys/container_names.h"
#include "sys/process_stats.h"
#include "unwind_maps.h"

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define METRICS_RUNQ_BUCKETS 40 /* log2 ns bounds: 2^0 .. 2^38 ns, then +Inf */

/* CPU time of one cgroup or comm. The label is raw bytes (a comm can hold
 * anything); rendering escapes and cleans it. */
struct metrics_cpu_row {
	const char *label;
	uint64_t samples;
	uint64_t ns;
};

/* Keys the kernel evicted from one of its full aggregation maps. */
struct metrics_map_evictions {
	const char *map; /* "comm", "cgroup" */
	uint64_t keys;
};

/* The labels of ringtrace_build_info. */
struct metrics_build_info {
	const char *version;
	const char *revision;      /* the git commit built, or "unknown" */
	const char *libbpf;        /* the libraries' versions at run time */
	const char *libmicrohttpd;
};

/* What export -g's sampling child counted since its start: samples its BPF
 * programs produced, those lost because its kernel ring was full, and
 * side-band records (names, mappings) lost. */
struct sampler_counts {
	uint64_t produced, lost, sideband_lost;
};

struct metrics_snapshot {
	const char *version;
	const struct metrics_build_info *build; /* if set, ringtrace_build_info's
						   labels (else version alone) */
	/* the process_* metrics of the Prometheus client libraries, or NULL
	 * (a textfile: node_exporter serves its own process_*) */
	const struct process_stats *process;
	const char *transport;             /* label of the record counts */
	const struct metrics_cpu_row *cgroups;
	size_t nr_cgroups;
	const struct metrics_cpu_row *comms;
	size_t nr_comms;
	unsigned int top_comms;            /* comms shown by name, the rest as "other"; 0: all */
	/* CPU time of keys evicted from the kernel's maps, added to an "other"
	 * row (label ignored) of the cgroups or the comms */
	struct metrics_cpu_row cgroups_evicted, comms_evicted;
	const struct metrics_map_evictions *evictions;
	size_t nr_evictions;
	const struct capture_cpu_counts *cpus;
	size_t nr_cpus;
	uint64_t runq_buckets[METRICS_RUNQ_BUCKETS]; /* not cumulative: bucket i < 2^i ns */
	uint64_t runq_count;
	uint64_t runq_sum_ns;
	const struct capture_ring_fill *rings;
	size_t nr_rings;
	bool bpf_stats;                    /* kernel.bpf_stats_enabled was on */
	const struct bpf_program_runs *programs;
	size_t nr_programs;
	/* --call-graph ehframe: the in-kernel unwinder's counts, or NULL */
	const struct rt_unwind_counters *unwind;
	/* where cgroups' containers are named (namespace, pod, container), the
	 * questions' time taken from *names_budget_ns; and what it did, served;
	 * or NULL */
	struct container_names *names;
	uint64_t *names_budget_ns;
	/* export -g's sampling child: its CPU time and resident memory, which
	 * process_* (this process alone) leave out */
	bool sampler;
	uint64_t sampler_cpu_ns, sampler_resident_bytes;
	/* ...and what it counted, as of its last second, if it said */
	bool sampler_counted;
	struct sampler_counts sampler_counts;
	/* the symbol tables profiles keep for the next, or NULL */
	const struct symtab_cache_counts *symbol_cache;
};

/* Appends the exposition text to out. 0, or -ENOMEM if memory ran out. */
int metrics_render(const struct metrics_snapshot *m, struct byte_buffer *out);

/* Appends value as a label value: the text a terminal is shown of it
 * (terminal_text_utf8: invalid UTF-8 as U+FFFD, control bytes as C escapes,
 * "\x1b"), then that text's backslashes and double quotes escaped, so the
 * wire holds "\\x1b" and no control byte, and a parser reads "\x1b" back.
 * -ENOMEM if memory ran out. */
int metrics_escape_label(struct byte_buffer *out, const char *value, size_t len);

#endif
