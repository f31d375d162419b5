/* SPDX-License-Identifier: GPL-2.0-only */
/* diff.h: report --diff: the folded stacks of two recordings (or folded
 * files) side by side, normalised, as folded columns or a differential flame graph. */
#ifndef RINGTRACE_DIFF_H
#define RINGTRACE_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

/*
 * Reads o->diff_before and o->input, each a recording (directory or perf.data
 * file, its stacks made as --folded makes them, with o's filters) or a file
 * of folded stacks ("stack count" lines), and writes, for o->output:
 * REPORT_FOLDED, "stack before after" lines sorted (difffolded.pl's format,
 * which flamegraph.pl reads); REPORT_FLAMEGRAPH, a differential flame graph
 * to o->flamegraph_path, as wide as after, red where a frame grew, blue where
 * it shrank. before is normalised to after's total as difffolded.pl -n does
 * (scaled, the fraction dropped; unscaled if after has no samples). 0,
 * -errno with err set, or REPORT_BAD_REQUEST.
 */
int report_diff_run(const struct report_options *o, FILE *out, char *err, size_t errlen);

#endif
