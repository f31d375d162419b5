/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_row.c: the rules libdw gives at one address of x86-64 code (a
 * Dwarf_Frame) as one compact unwind row: where the CFA, the return address
 * and the caller's rbp and rbx are. */
#include "symbols/unwind_row.h"

#include <dwarf.h>
#include <stdint.h>

/* DWARF register numbers of x86-64: rax 0, rdx 1, rcx 2, rbx 3, rsi 4,
 * rdi 5, rbp 6, rsp 7, r8-r15 8-15, the return address 16. */
#define DWARF_RBX 3
#define DWARF_RBP 6
#define DWARF_RSP 7
#define DWARF_R15 15
#define DWARF_RA 16

/* The PLT entries' CFA expression, as binutils writes it:
 * rsp + 8 + ((rip & 15) >= N) << 3, N 10 or 11. */
static int plt_threshold(const Dwarf_Op *ops, size_t nops)
{
	static const uint8_t shape[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					 DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus };

	if (nops != sizeof(shape))
		return 0;
	for (size_t i = 0; i < nops; i++)
		if (shape[i] && ops[i].atom != shape[i])
			return 0;
	if (ops[0].number != 8 || ops[1].number != 0)
		return 0;
	if (ops[4].atom == DW_OP_lit10)
		return 10;
	if (ops[4].atom == DW_OP_lit11)
		return 11;
	return 0;
}

/* The CFA rule: reg + offset (libdw gives DW_OP_bregx or DW_OP_bregN). */
static void cfa_rule(Dwarf_Frame *frame, struct unwind_row *r)
{
	Dwarf_Op *ops;
	size_t nops;
	int reg = -1, plt;
	int64_t offset = 0;

	r->cfa = UNWIND_CFA_EXPRESSION;
	if (dwarf_frame_cfa(frame, &ops, &nops) || nops == 0)
		return;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number <= DWARF_R15 ? (int)ops[0].number : -1;
		offset = (int64_t)ops[0].number2;
	} else if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		offset = (int64_t)ops[0].number;
	} else if ((plt = plt_threshold(ops, nops))) {
		r->cfa = plt == 10 ? UNWIND_CFA_PLT10 : UNWIND_CFA_PLT11;
		r->cfa_offset = 8;
		return;
	}
	if (reg < 0 || reg > DWARF_R15 || offset < INT32_MIN || offset > INT32_MAX)
		return;
	r->cfa_offset = (int32_t)offset;
	switch (reg) {
	case DWARF_RSP:
		r->cfa = UNWIND_CFA_RSP;
		break;
	case DWARF_RBP:
		r->cfa = UNWIND_CFA_RBP;
		break;
	case DWARF_RBX:
		r->cfa = UNWIND_CFA_RBX;
		break;
	default: /* rdi, rdx, ...: known in the first frame only */
		r->cfa = UNWIND_CFA_REG;
		r->cfa_reg = (uint8_t)reg;
	}
}

/* A register saved at CFA + offset: libdw's [DW_OP_call_frame_cfa,
 * DW_OP_plus_uconst offset]. 1 saved there, 0 same value, -1 undefined,
 * -2 another rule. */
static int saved_at(Dwarf_Frame *frame, int regno, int64_t *offset)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, regno, mem, &ops, &nops))
		return -2;
	if (nops == 0)
		return ops ? -1 : 0;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -2;
	if (nops == 1) {
		*offset = 0;
		return 1;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*offset = (int64_t)ops[1].number;
		return 1;
	}
	return -2;
}

/* The register the return address is in (DW_CFA_register: __vfork pops it
 * into rdi), or -1. */
static int ra_register(Dwarf_Frame *frame)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, DWARF_RA, mem, &ops, &nops) || nops != 1 ||
	    ops[0].atom != DW_OP_regx || ops[0].number > DWARF_R15)
		return -1;
	return (int)ops[0].number;
}

/* Where the caller's value of regno (rbp, rbx) is, into *how and *offset;
 * false for a rule the rows cannot say. */
static bool callee_saved(Dwarf_Frame *frame, int regno, uint8_t *how, int16_t *offset)
{
	int64_t off = 0;

	switch (saved_at(frame, regno, &off)) {
	case 1:
		if (off < INT16_MIN || off > INT16_MAX)
			return false;
		*how = UNWIND_RBP_SAVED;
		*offset = (int16_t)off;
		return true;
	case -1:
		*how = UNWIND_RBP_UNDEFINED;
		return true;
	case 0:
		return true;
	default:
		return false;
	}
}

void unwind_row_of_frame(Dwarf_Frame *frame, bool signal, struct unwind_row *r)
{
	int64_t off = 0;
	int ra, reg;

	if (signal) {
		r->cfa = UNWIND_CFA_SIGNAL;
		return;
	}
	ra = saved_at(frame, DWARF_RA, &off);
	if (ra == -1) {
		r->cfa = UNWIND_CFA_OUTERMOST;
		return;
	}
	cfa_rule(frame, r);
	/* the return address in a register, the CFA by rsp */
	if (ra == -2 && r->cfa == UNWIND_CFA_RSP && (reg = ra_register(frame)) >= 0) {
		r->cfa = UNWIND_CFA_RSP_RA_REG;
		r->cfa_reg = (uint8_t)reg;
		ra = 1;
		off = -8;
	}
	if (ra != 1 || off != -8 || !callee_saved(frame, DWARF_RBP, &r->rbp, &r->rbp_offset) ||
	    !callee_saved(frame, DWARF_RBX, &r->rbx, &r->rbx_offset)) {
		*r = (struct unwind_row){ .pc = r->pc, .cfa = UNWIND_CFA_EXPRESSION };
		return;
	}
	/* libdw's x86-64 ABI rules (backends/x86_64_cfi.c, to 0.188 at least)
	 * name register 0 callee-saved where they mean rbx (3): rbx with no
	 * rule in the CFI reads as undefined. The ABI says unchanged, and an
	 * explicit DW_CFA_undefined rbx cannot be told from it. */
	if (r->rbx == UNWIND_RBP_UNDEFINED)
		r->rbx = UNWIND_RBP_SAME;
}
