/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_elf.h: the ELF headers an unwind table is compiled from, checked
 * against the file's real size and read: its code ranges, its CFI sections. */
#ifndef RINGTRACE_UNWIND_ELF_H
#define RINGTRACE_UNWIND_ELF_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/unwind_compile.h"

/* [start, end) of executable code, in the file's virtual addresses. */
struct code_range {
	uint64_t start, end;
};

/* Every size the headers claim, against file_size (fstat's): a section's or
 * a loaded segment's bytes past the end, or executable addresses that wrap,
 * are a lie; a file not x86-64's (64-bit, little-endian) is UNWIND_NOT_ELF.
 * UNWIND_BUILT if none; else the refusal, and err says which. */
enum unwind_refusal unwind_elf_check_claims(Elf *elf, uint64_t file_size, char *err,
					    size_t errlen);
/* The executable sections' ranges (the executable segments' without section
 * headers) into *ranges (to free), sorted, none overlapping: how many, or
 * -ENOMEM out of memory. */
ssize_t unwind_elf_code_ranges(Elf *elf, struct code_range **ranges);
/* The section named name that has bytes in the file, or NULL. */
Elf_Scn *unwind_elf_section(Elf *elf, const char *name);
/* The next section after after (NULL: the first) named name that has bytes
 * in the file, or NULL. */
Elf_Scn *unwind_elf_next_section(Elf *elf, Elf_Scn *after, const char *name);
/* The .debug_frame section libdw's dwarf_begin_elf reads, if it is the only
 * section it could take for one (any *debug_frame*: compressed .z, split
 * .dwo, LTO's; outside a section group): else NULL, none read. */
Elf_Scn *unwind_elf_debug_frame(Elf *elf);
/* How many bytes scn holds once read (decompressed if compressed); 0 for NULL. */
uint64_t unwind_elf_section_bytes(Elf_Scn *scn);
/* The bytes libdw's dwarf_begin_elf would inflate (it inflates every
 * compressed debug section it knows at once): the decompressed sizes of the
 * compressed .debug_* and .zdebug_* sections but except. */
uint64_t unwind_elf_inflated_bytes(Elf *elf, Elf_Scn *except);
/* The executable segment's p_vaddr - p_offset (unwind_table's exec_vaddr_delta). */
int64_t unwind_elf_exec_vaddr_delta(Elf *elf);

#endif
