/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms.h: the kernel's symbol table from /proc/kallsyms (or a copy of
 * it), built as perf 6.1 builds it. */
#ifndef RINGTRACE_KALLSYMS_H
#define RINGTRACE_KALLSYMS_H

#include <stddef.h>

#include "symbols/symbols.h"

/* Loads the symbols of /proc/kallsyms (or another file in its format; the
 * kcore and modules beside it stand for /proc's). Returns 0, or -1 with err
 * set. */
int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen);

#endif
