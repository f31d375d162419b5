/* SPDX-License-Identifier: GPL-2.0-only */
/* debug_names.c: the functions a file's debug information names at an address,
 * as binutils' addr2line -i -f names them for perf (its inlined frames):
 * each function by its linkage name (demangled) or its DWARF name, the
 * innermost inlined one first. */
#include "symbols/debug_names.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

/* A function's name: its linkage name (demangled) where it has one, else
 * DW_AT_name; through its abstract origin (an inlined instance's). */
static char *function_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;
	char *plain;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) &&
	    (name = dwarf_formstring(&attr)))
		return (plain = demangle(name)) ? plain : strdup(name);
	name = dwarf_attr_integrate(die, DW_AT_name, &attr) ? dwarf_formstring(&attr) : NULL;
	return strdup(name ? name : "??");
}

/* Of the functions after die with its very range (GNU as describes an
 * assembly function once for each of its names: lgetxattr, then
 * __GI_lgetxattr), the last, as binutils takes it; die if none. */
static void last_of_same_range(Dwarf_Die *die)
{
	Dwarf_Addr low, high, l, h;
	Dwarf_Die next = *die;

	if (dwarf_lowpc(die, &low) || dwarf_highpc(die, &high))
		return;
	while (!dwarf_siblingof(&next, &next) && dwarf_tag(&next) == DW_TAG_subprogram &&
	       !dwarf_lowpc(&next, &l) && !dwarf_highpc(&next, &h) && l == low && h == high)
		*die = next;
}

size_t debug_names_at(Dwfl_Module *mod, Dwarf_Addr vaddr, char **names, size_t max)
{
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL, innermost;
	Dwarf_Addr bias;
	size_t n = 0;
	int nr, i;

	if (!(cu = dwfl_module_addrdie(mod, vaddr, &bias)))
		return 0;
	/* the innermost function there; its scopes as dwarf_getscopes gives
	 * them go on with an inlined function's abstract definition: those
	 * that hold this instance are dwarf_getscopes_die's (eu-addr2line -i) */
	nr = dwarf_getscopes(cu, vaddr - bias, &scopes);
	for (i = 0; i < nr; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine ||
		    dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	if (i < nr) {
		innermost = scopes[i];
		if (dwarf_tag(&innermost) == DW_TAG_subprogram)
			last_of_same_range(&innermost);
		nr = dwarf_getscopes_die(&innermost, &chain);
	} else {
		nr = 0;
	}
	for (i = 0; i < nr && n < max; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		if (!(names[n] = function_name(&chain[i])))
			break;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(chain);
	free(scopes);
	return n;
}
