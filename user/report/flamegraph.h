/* SPDX-License-Identifier: GPL-2.0-only */
/* flamegraph.h: an interactive SVG flame graph from folded stacks, written
 * natively: zoom by click, search, a tooltip with samples and percentage. */
#ifndef RINGTRACE_FLAMEGRAPH_H
#define RINGTRACE_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One folded stack, "root;caller;...;leaf", and its samples. */
struct flamegraph_stack {
	const char *stack;
	uint64_t count;
};

/* Writes the SVG to out. 0, or -1 with err set (out of memory). */
int flamegraph_write(FILE *out, const char *title, const struct flamegraph_stack *stacks,
		     size_t nr, char *err, size_t errlen);
/* Creates path (0600, not through a symlink, replacing no file) and writes
 * the SVG into it. */
int flamegraph_write_file(const char *path, const char *title,
			  const struct flamegraph_stack *stacks, size_t nr, char *err,
			  size_t errlen);

#endif
