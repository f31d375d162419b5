/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof_entries.h: the entries of a pprof builder's tables, shared by their
 * building (pprof.c) and their encoding (pprof_write.c). */
#ifndef RINGTRACE_PPROF_ENTRIES_H
#define RINGTRACE_PPROF_ENTRIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/pprof.h"

/* What every table's entries start with: the text that identifies the entry,
 * and its id (a string's index + 1; the id the profile gives the others). */
struct entry {
	char *key;
	uint64_t id;
};

struct mapping {
	struct entry e;
	uint64_t start, limit, pgoff;
	int64_t filename, build_id;
	bool grows; /* no known bounds (the kernel): those of its addresses */
	uint64_t leaves; /* samples taken in it */
};

struct function {
	struct entry e;
	int64_t name, filename;
};

struct location {
	struct entry e;
	uint64_t mapping_id, address, function_id;
};

struct sample {
	struct entry e;
	uint64_t *locations;
	size_t nr_locations;
	int64_t count, period;
	int64_t comm, cgroup; /* string indices; cgroup -1: none */
	uint32_t pid, tid, cpu;
};

/* The string table's index of s (added if new), or -ENOMEM if memory ran
 * out. The table holds s as a terminal is shown it (report's and script's
 * text), valid UTF-8 as profile.proto's strings must be: control bytes as C
 * escapes ("\x1b"), invalid bytes U+FFFD; names that differ only there share
 * one string. */
int64_t pprof_string_index(struct pprof_builder *b, const char *s);

#endif
