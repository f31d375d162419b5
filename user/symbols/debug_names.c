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

#include "lib/sorted_count.h"
#include "symbols/demangle.h"

/* An address range of a compilation unit, in the module's addresses. */
struct cu_range {
	Dwarf_Addr low, high;
	Dwarf_Die *cu;
	Dwarf_Addr bias;
};

struct debug_cu_index {
	struct cu_range *ranges; /* by low */
	size_t n;
};

void debug_cu_index_free(struct debug_cu_index *index)
{
	if (index)
		free(index->ranges);
	free(index);
}

static int by_low(const void *a, const void *b)
{
	const struct cu_range *l = a, *r = b;

	return l->low < r->low ? -1 : l->low > r->low;
}

/* Of ranges nested in others (none between the units of a linked file but
 * in a lying one), how many before the one found are looked at. */
#define CU_NESTED_LOOKS 16

/* Every range of every compilation unit of mod (DW_AT_low_pc/high_pc or
 * DW_AT_ranges, as dwarf_ranges reads them): one entry a range the file
 * names, so at most in proportion to its debug information; built once a
 * file (what memory allowed, if it ran out). Ranges at address 0 are
 * functions the linker discarded (ld.bfd's COMDAT copies), not code. */
static struct debug_cu_index *cu_index_build(Dwfl_Module *mod)
{
	struct debug_cu_index *index = calloc(1, sizeof(*index));
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias;
	size_t cap = 0;

	if (!index)
		return NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		Dwarf_Addr base, low, high;
		ptrdiff_t at = 0;

		while ((at = dwarf_ranges(cu, at, &base, &low, &high)) > 0) {
			if (low >= high || !low)
				continue;
			if (index->n == cap) {
				size_t want = cap ? cap * 2 : 64;
				struct cu_range *more = realloc(index->ranges, want * sizeof(*more));

				if (!more)
					goto sort;
				index->ranges = more;
				cap = want;
			}
			index->ranges[index->n++] = (struct cu_range){
				.low = low + bias, .high = high + bias, .cu = cu, .bias = bias};
		}
	}
sort:
	if (index->n)
		qsort(index->ranges, index->n, sizeof(*index->ranges), by_low);
	return index;
}

/* The compilation unit holding vaddr by the index: the range starting last
 * at or below it that reaches vaddr. */
static Dwarf_Die *cu_index_find(const struct debug_cu_index *index, Dwarf_Addr vaddr,
				Dwarf_Addr *bias)
{
	size_t n = sorted_count_at_or_below(index->ranges, index->n, sizeof(*index->ranges),
					    offsetof(struct cu_range, low), vaddr);

	for (size_t i = n; i > 0 && n - i < CU_NESTED_LOOKS; i--)
		if (vaddr < index->ranges[i - 1].high) {
			*bias = index->ranges[i - 1].bias;
			return index->ranges[i - 1].cu;
		}
	return NULL;
}

/* vaddr's compilation unit: through .debug_aranges where the file has
 * them; else (clang writes none by default, and libdw 0.188 looks nowhere
 * else) through the units' own ranges, indexed at the first miss (also in a
 * file with aranges, which may leave out units of other compilers: a walk
 * of its units, once). */
static Dwarf_Die *cu_at(Dwfl_Module *mod, struct debug_cu_index **index, Dwarf_Addr vaddr,
			Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, vaddr, bias);

	if (cu || !index)
		return cu;
	if (!*index && !(*index = cu_index_build(mod)))
		return NULL;
	return cu_index_find(*index, vaddr, bias);
}

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

size_t debug_names_at(Dwfl_Module *mod, struct debug_cu_index **index, Dwarf_Addr vaddr,
		      char **names, size_t max)
{
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL, innermost;
	Dwarf_Addr bias;
	size_t n = 0;
	int nr, i;

	if (!(cu = cu_at(mod, index, vaddr, &bias)))
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
