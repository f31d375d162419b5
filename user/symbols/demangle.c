/* SPDX-License-Identifier: GPL-2.0-only */
/* demangle.c: C++ and Rust symbol names as perf 6.1 shows them, by libiberty's
 * demangler (kept apart: libiberty's headers clash with libgen.h). */
#include "symbols/demangle.h"

#include <libiberty/demangle.h>

char *demangle(const char *name)
{
	/* perf's demangle_sym: cplus_demangle without options unless verbose
	 * (no parameter lists); AUTO tries Rust (legacy and v0), then the C++ ABI */
	return cplus_demangle(name, DMGL_NO_OPTS | DMGL_AUTO);
}
