/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_map.h: the symbols a JIT names for its code in perf-PID.map ("START
 * SIZE name" per line, hex), as perf reads them for anonymous executable memory. */
#ifndef RINGTRACE_PERF_MAP_H
#define RINGTRACE_PERF_MAP_H

#include <stdint.h>

#include "symbols/symbols.h"

/* Loads the map of pid into t (addresses as the process saw them): the
 * recording's copy (DIR/perf-PID.map in one of the NULL-terminated dirs),
 * else /tmp/perf-PID.map (under root, perf's --symfs, if not NULL) as perf
 * reads it, if it is a regular file (no symlink) owned by us or root. -ENOENT if
 * there is none. */
int perf_map_load(struct symtab *t, const char *root, uint32_t pid, const char *const *dirs);

#endif
