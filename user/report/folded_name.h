/* SPDX-License-Identifier: GPL-2.0-only */
/* folded_name.h: a comm or a frame name as a folded stack line may hold it,
 * as stackcollapse-perf.pl makes them: no ';' and no line break in a name. */
#ifndef RINGTRACE_FOLDED_NAME_H
#define RINGTRACE_FOLDED_NAME_H

#include <stdbool.h>

#include "lib/byte_buffer.h"

/*
 * Appends name to b as one frame of "comm;outer;...;leaf COUNT" (no NUL):
 * ';', which separates frames, becomes ':'; a comm's spaces and control
 * characters become '_' (stackcollapse-perf.pl's tr/ /_/); a symbol's
 * control characters (newline, tab, ...) become spaces, runs of spaces one,
 * none at either end, since the count follows the last space of the line;
 * an empty name is "[unknown]". Returns 0, or -1 if memory ran out.
 */
int folded_append_name(struct byte_buffer *b, const char *name, bool comm);

#endif
