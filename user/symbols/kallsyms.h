/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms.h: the kernel's symbol table from /proc/kallsyms (or a copy of
 * it), built as perf 6.1 builds it. */
#ifndef RINGTRACE_KALLSYMS_H
#define RINGTRACE_KALLSYMS_H

#include <stddef.h>

#include "symbols/symbols.h"

/* Loads the symbols of /proc/kallsyms (or another file in its format; the
 * kcore and modules beside it stand for /proc's). Returns 0, or -errno with err
 * set. */
int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen);

/* kallsyms read by a thread of its own: a fixed 50 ms (half of it the
 * kernel's, making the text) that a reader's first pass over its files
 * hides. Started for path: NULL where a thread would cost more than the
 * parse (a regular file under 64 KiB: a test's, a fuzzer's; /proc's has no
 * size), or cannot start; then read it where it is needed. */
struct kallsyms_loader;
struct kallsyms_loader *kallsyms_load_beside(const char *path);
/* Waits for the loader and frees it: its table into t, and what
 * symtab_load_kallsyms returned. */
int kallsyms_loader_take(struct kallsyms_loader *l, struct symtab *t);

#endif
