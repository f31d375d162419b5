/* SPDX-License-Identifier: GPL-2.0-only */
/* demangle.c: C++ and Rust symbol names as people read them, by libiberty's
 * demangler (kept apart: libiberty's headers clash with libgen.h). */
#include "symbols/demangle.h"

#include <libiberty/demangle.h>

char *demangle(const char *name)
{
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* AUTO tries Rust (legacy and v0) and then the C++ ABI; without
	 * DMGL_PARAMS, as perf demangles (unless verbose): no parameter lists */
	return cplus_demangle(name, DMGL_AUTO);
}
