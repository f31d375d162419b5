/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel_symbols.h: an address space's table of the kernel, for
 * address_space.c: read beside the first pass (address_space.h), kept
 * between one process's reports, read again for an address past what a
 * kept table answers for. */
#ifndef RINGTRACE_KERNEL_SYMBOLS_H
#define RINGTRACE_KERNEL_SYMBOLS_H

#include <stdint.h>

#include "symbols/address_space.h"

/* Loads d, the kernel's dso: the table read beside, or kept, or read now. */
void kernel_symbols_load(struct address_space *as, struct dso *d);
/* The table to look ip up in: d's, or for an ip a kept table does not
 * answer for (a module's, a BPF program's), one read now, once per
 * address space (d's if that cannot be read); NULL if d's could not be. */
const struct symtab *kernel_symbols_for(struct address_space *as, struct dso *d, uint64_t ip);
void kernel_symbols_free(struct address_space *as);

#endif
