/* SPDX-License-Identifier: GPL-2.0-only */
/* cfi_demand.c: the CFA instructions of a CIE or an FDE read for what libdw
 * would pay to run them (cfi_demand.h): their operands' sizes, register
 * numbers, remembered states and expressions, nothing of their rules. */
#include "symbols/cfi_demand.h"

#include <dwarf.h>

void cfi_demands(const struct cfi_reader *rd, const uint8_t *p, const uint8_t *end,
		 uint8_t loc_enc, struct cfi_demand *d)
{
	while (p < end && !d->unreadable) {
		uint8_t op = *p++;
		uint64_t reg = 0, operand = 0;
		bool ok = true;

		switch (op & 0xc0 ? op & 0xc0 : op) {
		case DW_CFA_offset: /* the register in the low 6 bits, as restore's */
			ok = cfi_read_leb128(&p, end, false, &operand);
			break;
		case DW_CFA_advance_loc:
		case DW_CFA_restore:
		case DW_CFA_nop:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_remember_state:
			if (++d->depth > d->max_depth)
				d->max_depth = d->depth;
			break;
		case DW_CFA_restore_state:
			d->depth -= d->depth > 0;
			break;
		case DW_CFA_set_loc:
			ok = cfi_read_encoded(rd, &p, end, loc_enc & 0x0f, false, &operand);
			break;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4:
			ok = cfi_skip(&p, end, 1u << (op - DW_CFA_advance_loc1));
			break;
		case DW_CFA_def_cfa_offset:
		case DW_CFA_GNU_args_size:
			ok = cfi_read_leb128(&p, end, false, &operand);
			break;
		case DW_CFA_def_cfa_offset_sf:
			ok = cfi_read_leb128(&p, end, true, &operand);
			break;
		case DW_CFA_def_cfa_expression:
			ok = cfi_read_leb128(&p, end, false, &operand) && cfi_skip(&p, end, operand);
			d->expression_bytes += operand;
			break;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			ok = cfi_read_leb128(&p, end, false, &reg);
			break;
		case DW_CFA_offset_extended:
		case DW_CFA_def_cfa:
		case DW_CFA_val_offset:
		case DW_CFA_GNU_negative_offset_extended:
			ok = cfi_read_leb128(&p, end, false, &reg) &&
			     cfi_read_leb128(&p, end, false, &operand);
			break;
		case DW_CFA_register: /* two registers */
			ok = cfi_read_leb128(&p, end, false, &reg) &&
			     cfi_read_leb128(&p, end, false, &operand);
			reg = operand > reg ? operand : reg;
			break;
		case DW_CFA_offset_extended_sf:
		case DW_CFA_def_cfa_sf:
		case DW_CFA_val_offset_sf:
			ok = cfi_read_leb128(&p, end, false, &reg) &&
			     cfi_read_leb128(&p, end, true, &operand);
			break;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			ok = cfi_read_leb128(&p, end, false, &reg) &&
			     cfi_read_leb128(&p, end, false, &operand) && cfi_skip(&p, end, operand);
			d->expression_bytes += operand;
			break;
		default: /* libdw does not read it either */
			ok = false;
		}
		d->unreadable = !ok;
		if (reg > d->max_register)
			d->max_register = reg;
	}
}

bool cfi_demand_within_reason(const struct cfi_demand *d)
{
	return !d->unreadable && d->max_register <= CFI_MAX_REGISTER &&
	       d->max_depth <= CFI_MAX_REMEMBERED &&
	       d->expression_bytes <= CFI_MAX_EXPRESSION_BYTES;
}
