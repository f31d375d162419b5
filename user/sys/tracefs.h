/* SPDX-License-Identifier: GPL-2.0-only */
/* tracefs.h: the kernel's tracefs: found or mounted, tracepoint ids and formats
 * (fixed size, dynamic fields), the list of events, and files read whole. */
#ifndef RINGTRACE_TRACEFS_H
#define RINGTRACE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"

#define TRACEPOINT_MAX_DYNAMIC_FIELDS 4

/* What ringtrace needs to know of one tracepoint to copy its record. */
/* A tracepoint as tracefs names it: events/SYSTEM/NAME. */
struct tracepoint_name {
	const char *system;
	const char *name;
};

struct tracepoint_format {
	uint32_t id;           /* "ID:", the attr.config of a PERF_TYPE_TRACEPOINT event */
	uint32_t fixed_size;   /* end of the last fixed field */
	/* __data_loc / __rel_loc fields: where their u32 (offset | len << 16) is */
	uint16_t dynamic_offset[TRACEPOINT_MAX_DYNAMIC_FIELDS];
	bool dynamic_relative[TRACEPOINT_MAX_DYNAMIC_FIELDS]; /* __rel_loc */
	uint8_t nr_dynamic;
};

/* The tracefs mount point ("/sys/kernel/tracing"), mounting it there if no
 * tracefs is mounted. NULL with err set if neither works. */
const char *tracefs_path(char *err, size_t errlen);

/* Why tracefs file relpath ("events/sched/sched_switch/format") could not be
 * read, after what ("cannot read tracepoint sched:sched_switch"): the part of
 * its path that keeps this user out, whose it is, and the fixes (root, or a
 * remount opening tracefs to a group). */
void tracefs_denied(const char *what, const char *relpath, char *err, size_t errlen);

/* Reads events/SYSTEM/NAME/format. 0, or -errno with err naming the tracepoint
 * (and, for -EACCES or -EPERM, as tracefs_denied says). */
int tracefs_read_format(const char *system, const char *name, struct tracepoint_format *out,
			char *err, size_t errlen);

/* One field of a tracepoint's record, as its format file declares it. */
struct tracepoint_field {
	char name[64];
	char type[128];  /* as declared, an array's "[N]" included: "char[16]",
			    "__data_loc char[]", "const char *", "pid_t" */
	uint32_t offset;
	uint32_t size;
	bool is_signed;
};

/* Finds the field called name in the text of a format file (the common_*
 * fields too). 0, or -ENOENT. */
int tracefs_format_field(const char *text, const char *name, struct tracepoint_field *out);

/* Calls fn with each field of the text of a format file, in order. */
void tracefs_format_each_field(const char *text,
			       void (*fn)(const struct tracepoint_field *f, void *ctx), void *ctx);

/* Parses the text of a format file (exposed for tests); 0, or -EINVAL. */
int tracefs_parse_format(const char *text, struct tracepoint_format *out);

/* Appends the whole contents of tracefs file relpath ("events/header_page") to
 * b. 0, or -errno if it cannot be read. */
int tracefs_read_file(const char *relpath, struct byte_buffer *b);

/* Calls fn with "system:name" for every tracepoint in available_events; 0, or
 * -errno. */
int tracefs_each_event(void (*fn)(const char *system_name, void *ctx), void *ctx);

#endif
