/* SPDX-License-Identifier: GPL-2.0-only */
/* eh_frame_hdr.h: what a file's .eh_frame_hdr tells libdw, checked against
 * what the compile read: where .eh_frame is (in a file without section
 * headers), and the FDE its search table sends each pc to. */
#ifndef RINGTRACE_EH_FRAME_HDR_H
#define RINGTRACE_EH_FRAME_HDR_H

#include <gelf.h>
#include <stddef.h>

#include "symbols/cfi_fdes.h"
#include "symbols/unwind_compile.h"

/* The .eh_frame of a file without the section: where PT_GNU_EH_FRAME's
 * header points, to the file's end as libdw reads it (dwarf_next_cfi stops
 * at its zero terminator), all of it its budget_bytes. UNWIND_BUILT, with
 * sec->data NULL if there is none libdw reads; UNWIND_LYING_HEADER if the
 * segment holds it at another file offset than libdw reads it from (the
 * header's own segment's), UNWIND_UNKNOWN_CFI if its pointer is encoded as
 * no linker writes it; err says which. */
enum unwind_refusal eh_frame_hdr_eh_frame(Elf *elf, struct cfi_section *sec, char *err,
					  size_t errlen);

/* libdw runs the FDE an .eh_frame_hdr's table names for a pc without
 * reading the section up to it: whether every entry of every table libdw
 * may search for eh_frame (its .eh_frame_hdr sections, or PT_GNU_EH_FRAME's
 * header for one of_segments) names an FDE the compile's walk read (starts,
 * ascending). UNWIND_BUILT; UNWIND_LYING_HEADER for an entry that names
 * another offset, or more entries than FDEs; UNWIND_UNKNOWN_CFI for a table
 * encoded as no linker writes it. err says which. */
enum unwind_refusal eh_frame_hdr_check(Elf *elf, const struct cfi_section *eh_frame,
				       const struct cfi_fde_starts *starts, char *err,
				       size_t errlen);

#endif
