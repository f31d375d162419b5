/* SPDX-License-Identifier: GPL-2.0-only */
/* flamegraph.h: an SVG flame graph from folded stacks with every frame's
 * geometry written out (an image without JavaScript), and zoom and search. */
#ifndef RINGTRACE_FLAMEGRAPH_H
#define RINGTRACE_FLAMEGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One folded stack, "root;caller;...;leaf", and its samples (in a
 * differential graph: after, and before, normalised). */
struct flamegraph_stack {
	const char *stack;
	uint64_t count;
	uint64_t before;
};

#define FLAMEGRAPH_DEFAULT_WIDTH 1200

struct flamegraph_options {
	const char *title;
	unsigned int width;  /* pixels; 0: FLAMEGRAPH_DEFAULT_WIDTH */
	bool inverted;       /* an icicle graph: the root at the top */
	bool differential;   /* colour by after - before: red grew, blue shrank */
	const char *count_name; /* what a count is, in the tooltips (flamegraph.pl's
				 * --countname); NULL: "samples" */
};

/*
 * Writes the SVG to out. Frames are as wide as their samples; those narrower
 * than 0.1 px are left out (their time stays in their caller's frame), as
 * flamegraph.pl's --minwidth. A name ending in "_[k]" (kernel), "_[j]" (JIT)
 * or "_[i]" (inlined) is coloured as flamegraph.pl's java palette colours it,
 * others in its hot palette. 0, or -ENOMEM with err set (out of memory).
 */
int flamegraph_write(FILE *out, const struct flamegraph_options *o,
		     const struct flamegraph_stack *stacks, size_t nr, char *err, size_t errlen);

#endif
