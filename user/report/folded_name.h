/* SPDX-License-Identifier: GPL-2.0-only */
/* folded_name.h: a comm or a frame name as a folded stack line may hold it,
 * as stackcollapse-perf.pl makes them: no ';' and no line break in a name. */
#ifndef RINGTRACE_FOLDED_NAME_H
#define RINGTRACE_FOLDED_NAME_H

#include <stdbool.h>

#include "lib/byte_buffer.h"
#include "symbols/address_space.h"

/*
 * Appends name to b as one frame of "comm;outer;...;leaf COUNT" (no NUL):
 * ';', which separates frames, becomes ':'; control characters (newline,
 * tab, ESC, ...) become '_', and a comm's spaces too (stackcollapse-perf.pl's
 * tr/ /_/); a frame's spaces stay, as stackcollapse-perf.pl keeps them
 * ("operator new"), runs of them one, none at either end, since the count
 * follows the last space of the line; an empty name is "[unknown]".
 * Returns 0, or -ENOMEM if memory ran out.
 */
int folded_append_name(struct byte_buffer *b, const char *name, bool comm);

/* What a frame is called in a stack: its symbol, or [file] when only the
 * file is known (as stackcollapse-perf.pl writes it), or [unknown]; with
 * annotate, "_[k]" after a kernel function and "_[j]" after a JIT's (as
 * stackcollapse-perf.pl --all), for flame graphs to colour them. Interned
 * in as; NULL if memory ran out. */
const char *folded_frame_name(struct address_space *as, const struct resolved *where,
			      bool annotate);

#endif
