/* SPDX-License-Identifier: GPL-2.0-only */
/* debug_names.h: the functions a file's debug information names at an address,
 * as binutils' addr2line -i -f names them for perf (its inlined frames):
 * each function by its linkage name (demangled) or its DWARF name, the
 * innermost inlined one first. */
#ifndef RINGTRACE_DEBUG_NAMES_H
#define RINGTRACE_DEBUG_NAMES_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

/* The compilation units of a module by address, for a file whose
 * .debug_aranges do not name them all (clang's files have none). */
struct debug_cu_index;

/* The names at the module's address vaddr (its own addresses), the
 * innermost inlined function first, the function holding them last; at
 * most max into names, each malloc'd (the caller frees them). Returns how
 * many: 0 without debug information there (or memory). *index is the
 * module's unit index, built here when first needed (NULL: none yet); the
 * caller keeps it with the module and frees it with debug_cu_index_free. */
size_t debug_names_at(Dwfl_Module *mod, struct debug_cu_index **index, Dwarf_Addr vaddr,
		      char **names, size_t max);
void debug_cu_index_free(struct debug_cu_index *index);

#endif
