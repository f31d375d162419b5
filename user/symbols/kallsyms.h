/* SPDX-License-Identifier: GPL-2.0-only */
/* kallsyms.h: the kernel's symbol table from /proc/kallsyms (or a copy of
 * it), built as perf 6.1 builds it. */
#ifndef RINGTRACE_KALLSYMS_H
#define RINGTRACE_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"

/* Loads the symbols of /proc/kallsyms (or another file in its format; the
 * kcore and modules beside it stand for /proc's). Returns 0, or -errno with err
 * set. */
int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen);

/* symtab_load_kallsyms, but the table is the one symtab_cache keeps for
 * the file's inode (and for /proc/kallsyms, the modules loaded now), when
 * it keeps one: a view of it, or it is kept. Errors are not told. */
int kallsyms_load_kept(struct symtab *t, const char *path);
/* Whether t answers for ip as a table read now would: a table read now, or
 * a kept one and ip where its symbols stay (steady_start, steady_end);
 * else read it again for ip. */
bool kallsyms_answers(const struct symtab *t, uint64_t ip);

/* kallsyms read by a thread of its own: a fixed 50 ms (half of it the
 * kernel's, making the text) that a reader's first pass over its files
 * hides. Started for path: NULL where a thread would cost more than the
 * parse (a regular file under 64 KiB: a test's, a fuzzer's; /proc's has no
 * size), or cannot start; then read it where it is needed. */
struct kallsyms_loader;
struct kallsyms_loader *kallsyms_load_beside(const char *path);
/* Whether l's table is read: taking it would not wait. */
bool kallsyms_loader_done(struct kallsyms_loader *l);
/* Waits for the loader and frees it: its table into t, and what
 * symtab_load_kallsyms returned. */
int kallsyms_loader_take(struct kallsyms_loader *l, struct symtab *t);

#endif
