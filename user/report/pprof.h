/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof.h: a pprof profile (profile.proto, gzipped) built from resolved
 * samples: mappings, locations, functions, labels, encoded with protobuf-c. */
#ifndef RINGTRACE_PPROF_H
#define RINGTRACE_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/hash_map.h"
#include "sys/container_names.h"

/* One frame of a sample, resolved. */
struct pprof_frame {
	uint64_t ip;
	const char *function; /* as --folded names it */
	const char *dso;      /* the file (or "[kernel.kallsyms]", "[unknown]") */
	bool mapped;          /* ip lies in map_start..map_end of dso */
	uint64_t map_start, map_end, map_pgoff;
	const uint8_t *build_id; /* or NULL */
	size_t build_id_size;
};

/* Who a sample is of, for its labels. */
struct pprof_sample_labels {
	const char *comm;
	uint32_t pid, tid, cpu;
	const char *cgroup; /* NULL if the recording has no cgroup ids */
};

/* What the profile's values are: samples/count, then value_type/value_unit
 * (cpu/nanoseconds, off_cpu/nanoseconds, EVENT/count) from the periods. */
struct pprof_header {
	const char *value_type, *value_unit;
	int64_t period;          /* between two samples, in value_unit; 0 if unknown */
	int64_t time_nanos;      /* start, ns since the epoch */
	int64_t duration_nanos;
	const char *comment;     /* or NULL */
};

/* Frames whose locations a builder remembers (a power of two). */
#define PPROF_LOCATION_MEMO 4096

struct location_memo;

struct pprof_builder {
	struct hash_map strings, mappings, functions, locations, samples;
	void **string_list, **mapping_list, **function_list, **location_list, **sample_list;
	size_t nr_strings, nr_mappings, nr_functions, nr_locations, nr_samples;
	size_t cap_strings, cap_mappings, cap_functions, cap_locations, cap_samples;
	uint64_t *stack; /* the sample being added: location ids, leaf first */
	size_t cap_stack;
	/* frames' locations found before, PPROF_LOCATION_MEMO of them, by a
	 * hash of the frame (pprof.c) */
	struct location_memo *memo;
	/* where the samples' containers are named (namespace, pod, container),
	 * the questions' time taken from *names_budget_ns; or NULL */
	struct container_names *names;
	uint64_t *names_budget_ns;
};

void pprof_builder_init(struct pprof_builder *b);
void pprof_builder_free(struct pprof_builder *b);
/* Adds one sample of frames (leaf first) weighing period. 0, or -ENOMEM if memory
 * ran out. */
int pprof_add_sample(struct pprof_builder *b, const struct pprof_sample_labels *labels,
		     const struct pprof_frame *frames, size_t nr, uint64_t period);
/* Writes the gzipped profile to out. 0, or -errno with err set. */
int pprof_write(struct pprof_builder *b, const struct pprof_header *h, FILE *out, char *err,
		size_t errlen);

#endif
