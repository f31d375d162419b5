/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_file.h: the on-disk layout of a perf.data file as perf 6.1 reads it:
 * the file header, sections, feature bits, and the attr entry size. */
#ifndef RINGTRACE_PERF_FILE_H
#define RINGTRACE_PERF_FILE_H

#include <linux/perf_event.h>
#include <stdint.h>

#define PERF_FILE_MAGIC 0x32454c4946524550ULL /* "PERFILE2" little-endian */

/* perf 6.1's struct perf_event_attr is 128 bytes (PERF_ATTR_SIZE_VER7). We write
 * exactly that many bytes and that size, whatever the headers we build with. */
#define PERF_FILE_ATTR_SIZE 128u
_Static_assert(sizeof(struct perf_event_attr) >= PERF_FILE_ATTR_SIZE,
	       "perf_event_attr must hold at least the 6.1 fields");

struct perf_file_section {
	uint64_t offset;
	uint64_t size;
};

#define PERF_FILE_FEATURE_BITS 256

struct perf_file_header {
	uint64_t magic;
	uint64_t size; /* sizeof(struct perf_file_header) */
	uint64_t attr_size; /* one attrs entry: attr bytes + ids section */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types; /* unused since perf 3.x: zero */
	uint64_t features[PERF_FILE_FEATURE_BITS / 64];
};
_Static_assert(sizeof(struct perf_file_header) == 104, "perf_file_header is 104 bytes");

/* One entry of the attrs section: the attr, then where its sample ids are. */
#define PERF_FILE_ATTR_ENTRY_SIZE (PERF_FILE_ATTR_SIZE + sizeof(struct perf_file_section))

/* Feature sections (tools/perf/util/header.h), in file order by bit number. */
enum perf_file_feature {
	PERF_FEAT_TRACING_DATA = 1,
	PERF_FEAT_BUILD_ID = 2,
	PERF_FEAT_HOSTNAME = 3,
	PERF_FEAT_OSRELEASE = 4,
	PERF_FEAT_VERSION = 5,
	PERF_FEAT_ARCH = 6,
	PERF_FEAT_NRCPUS = 7,
	PERF_FEAT_CMDLINE = 11,
	PERF_FEAT_EVENT_DESC = 12,
	PERF_FEAT_SAMPLE_TIME = 21,
	PERF_FEAT_CLOCKID = 23,
	PERF_FEAT_DIR_FORMAT = 24,
};

/* Strings in feature sections are padded to this alignment (NAME_ALIGN). */
#define PERF_FILE_STRING_ALIGN 64

/* HEADER_DIR_FORMAT version: per-CPU "data.*" files beside the header file. */
#define PERF_DIR_FORMAT_VERSION 1

#endif
