/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_demand.h: what the CFA instructions of a CIE or an FDE ask of libdw
 * when it runs them (the largest register they name, the states they
 * remember, their expressions' bytes), read before libdw is let run them,
 * and whether that is within reason. */
#ifndef RINGTRACE_CFI_DEMAND_H
#define RINGTRACE_CFI_DEMAND_H

#include <stdbool.h>
#include <stdint.h>

#include "symbols/cfi_encoded.h"

/* What libdw is let run of one FDE with its CIE. It grows a frame to the
 * largest register number they name (up to 2^28, 8 bytes each) and copies
 * that frame at every DW_CFA_remember_state, for each row looked up.
 * x86-64's DWARF numbers end at 125 (k7), compilers nest a state or two:
 * an FDE past these is left out, a gap (frame pointers), not gigabytes. */
#define CFI_MAX_REGISTER 127
#define CFI_MAX_REMEMBERED 64
/* Expression bytes: libdw interns each CFA or register expression a row
 * uses as 32 bytes per operation, kept until the CFI is freed. PLT
 * entries' is 11 bytes, a signal trampoline's a few hundred. */
#define CFI_MAX_EXPRESSION_BYTES 1024u

/* What the CFA instructions of a CIE, then of an FDE, ask of libdw. */
struct cfi_demand {
	uint64_t max_register;
	uint64_t expression_bytes;
	unsigned int depth, max_depth; /* of remembered states */
	bool unreadable;
};

/* Walks the CFA instructions [p, end) for their register numbers and
 * remembered states (their operands' sizes are all it decodes), adding to
 * d (unreadable: an operation or operand libdw would not read either);
 * set_loc's address is encoded as loc_enc. */
void cfi_demands(const struct cfi_reader *rd, const uint8_t *p, const uint8_t *end,
		 uint8_t loc_enc, struct cfi_demand *d);

/* d readable and within the limits above. */
bool cfi_demand_within_reason(const struct cfi_demand *d);

#endif
