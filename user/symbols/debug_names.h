/* SPDX-License-Identifier: GPL-2.0-only */
/* debug_names.h: the functions a file's debug information names at an address,
 * as binutils' addr2line -i -f names them for perf (its inlined frames):
 * each function by its linkage name (demangled) or its DWARF name, the
 * innermost inlined one first. */
#ifndef RINGTRACE_DEBUG_NAMES_H
#define RINGTRACE_DEBUG_NAMES_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

/* The names at the module's address vaddr (its own addresses), the
 * innermost inlined function first, the function holding them last; at
 * most max into names, each malloc'd (the caller frees them). Returns how
 * many: 0 without debug information there (or memory). */
size_t debug_names_at(Dwfl_Module *mod, Dwarf_Addr vaddr, char **names, size_t max);

#endif
