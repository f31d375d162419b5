/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_row.h: the rules libdw gives at one address of x86-64 code (a
 * Dwarf_Frame) as one compact unwind row: where the CFA, the return address
 * and the caller's rbp and rbx are. */
#ifndef RINGTRACE_UNWIND_ROW_H
#define RINGTRACE_UNWIND_ROW_H

#include <stdbool.h>
#include <elfutils/libdw.h>

#include "symbols/unwind_compile.h"

/* r's rules from frame (r->pc is the caller's); signal: the frame is a
 * signal trampoline's. A rule the in-kernel walk cannot follow makes r an
 * UNWIND_CFA_EXPRESSION row (frame pointers, counted). */
void unwind_row_of_frame(Dwarf_Frame *frame, bool signal, struct unwind_row *r);

#endif
