/* SPDX-License-Identifier: GPL-2.0-only */
/* demangle.c: C++ and Rust symbol names as perf 6.1 shows them, by libiberty's
 * demangler (kept apart: libiberty's headers clash with libgen.h). */
#include "symbols/demangle.h"

#include <string.h>

#include <libiberty/demangle.h>

bool demangle_candidate(const char *name)
{
	return name[0] == '_' && (name[1] == 'Z' || name[1] == 'R' || !strncmp(name, "_GLOBAL_", 8));
}

char *demangle(const char *name)
{
	/* what AUTO's two demanglers take, and no other name: Rust's
	 * (legacy _ZN, v0 _R) and the C++ ABI's (_Z, and _GLOBAL_ for the
	 * constructors and destructors of a file); most of a C library's
	 * names are neither, and a call per symbol was 5% of the agent's
	 * CPU under churn */
	if (!demangle_candidate(name))
		return NULL;
	/* perf's demangle_sym: cplus_demangle without options unless verbose
	 * (no parameter lists); AUTO tries Rust (legacy and v0), then the C++ ABI */
	return cplus_demangle(name, DMGL_NO_OPTS | DMGL_AUTO);
}
