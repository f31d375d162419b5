/* SPDX-License-Identifier: GPL-2.0-only */
/* vdso.h: the vdso, read from this process's own as perf reads its own (the
 * kernel maps one image into every process of a boot): its symbols, and the
 * image as a file to unwind through a recorded process's [vdso]. */
#ifndef RINGTRACE_VDSO_H
#define RINGTRACE_VDSO_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/symbols.h"

/* Loads the symbols of this process's [vdso]; with want_len, only if its
 * build-id is want_id (the recording named the one it saw). Returns 0, or -errno
 * with err set (no vdso, another build). */
int symtab_load_vdso(struct symtab *t, const uint8_t *want_id, size_t want_len, char *err,
		     size_t errlen);

/* A new descriptor of a memfd holding this process's vdso image, made once;
 * -1 if there is none. The caller closes it. */
int vdso_open_own(void);

#endif
