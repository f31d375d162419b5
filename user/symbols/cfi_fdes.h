/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_fdes.h: the code ranges every FDE of an .eh_frame or .debug_frame
 * section describes, sorted, and the two sections' ranges combined. */
#ifndef RINGTRACE_CFI_FDES_H
#define RINGTRACE_CFI_FDES_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/unwind_compile.h"

/* Which section describes a range. */
enum cfi_source {
	CFI_EH_FRAME,
	CFI_DEBUG_FRAME,
};

/* [lo, hi) in the file's virtual addresses, described by one FDE of source. */
struct cfi_fde_range {
	uint64_t lo, hi;
	uint32_t cfi_bytes; /* its CIE's and its instructions: libdw runs them per row */
	uint8_t source;     /* enum cfi_source */
};

struct cfi_fde_ranges {
	struct cfi_fde_range *v;
	size_t nr, cap;
};

/* Where each FDE a walk read starts: its offset in the section, ascending. */
struct cfi_fde_starts {
	uint64_t *v;
	size_t nr, cap;
};

/* Asked every few hundred entries whether to go on: UNWIND_BUILT does, any
 * other refusal stops the walk and is returned. */
typedef enum unwind_refusal (*cfi_fdes_go_on)(void *arg);

/* A CFI section's bytes (as dwarf_next_cfi reads them) and the address of
 * the first. */
struct cfi_section {
	Elf_Data *data;
	uint64_t vaddr;
	uint64_t budget_bytes; /* what counts against the CFI budget */
	bool of_segments;      /* an .eh_frame found by PT_GNU_EH_FRAME, not a section */
};

/* Appends the range of every FDE of sec (an .eh_frame if eh_frame, else a
 * .debug_frame) to out, at most max_fdes of them, asking go_on(arg) as it
 * goes; and where each FDE read starts to starts (unless NULL). An FDE
 * that asks libdw for an unreasonable frame (a register number past
 * x86-64's, states remembered deep, instructions past 64 KB) is left out,
 * and so is every FDE whose range overlaps its (libdw may run either for a
 * pc both cover): a gap. UNWIND_BUILT, or UNWIND_OVER_ROWS past max_fdes,
 * UNWIND_UNKNOWN_CFI for an FDE whose range is not read here as libdw
 * would (its CIE's augmentation, its address's encoding: libdw could run
 * its unread instructions), UNWIND_NO_MEMORY, or go_on's refusal. */
enum unwind_refusal cfi_fdes_collect(Elf *elf, const struct cfi_section *sec, bool eh_frame,
				     size_t max_fdes, cfi_fdes_go_on go_on, void *arg,
				     struct cfi_fde_ranges *out, struct cfi_fde_starts *starts);

/* Sorts ranges by lo and clips each to start where the one before ends
 * (dropping the ones left empty): no two overlap. */
void cfi_fdes_sort(struct cfi_fde_ranges *ranges);

/* Adds to eh (.eh_frame's, sorted) the parts of debug's ranges (sorted) that
 * no range of eh covers, keeping eh sorted: .eh_frame wins where both
 * describe a pc. 0, or -ENOMEM. */
int cfi_fdes_combine(struct cfi_fde_ranges *eh, const struct cfi_fde_ranges *debug);

void cfi_fdes_free(struct cfi_fde_ranges *ranges);
void cfi_fde_starts_free(struct cfi_fde_starts *starts);

#endif
