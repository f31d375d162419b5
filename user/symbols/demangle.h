/* SPDX-License-Identifier: GPL-2.0-only */
/* demangle.h: C++ and Rust symbol names as perf 6.1 shows them, by libiberty's
 * demangler (kept apart: libiberty's headers clash with libgen.h). */
#ifndef RINGTRACE_DEMANGLE_H
#define RINGTRACE_DEMANGLE_H

#include <stdbool.h>

/* The demangled form of name (malloc'd, the caller frees), without
 * parameter lists as perf shows it, or NULL when name is not a mangled C++
 * (_Z) or Rust (_ZN...E, _R) name. */
char *demangle(const char *name);
/* Whether demangle could find name mangled (else it returns NULL at once). */
bool demangle_candidate(const char *name);

#endif
