/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_table.c: an ELF file's .eh_frame (and its .debug_frame, for code the
 * .eh_frame does not describe) compiled with libdw's CFI API into compact
 * rows (how to find the CFA, the return address and the saved rbp). */
#include "symbols/unwind_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

/* DWARF register numbers of x86-64. */
#define DWARF_RBP 6
#define DWARF_RSP 7
#define DWARF_RA 16

static int push_row(struct unwind_table *t, const struct unwind_row *r)
{
	if (t->nr) {
		struct unwind_row *last = &t->rows[t->nr - 1];

		/* the same rule as the row before: that row covers it too */
		if (last->cfa == r->cfa && last->cfa_offset == r->cfa_offset &&
		    last->rbp == r->rbp && last->rbp_offset == r->rbp_offset)
			return 0;
		if (last->pc == r->pc) {
			*last = *r;
			return 0;
		}
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct unwind_row *grown = realloc(t->rows, cap * sizeof(*grown));

		if (!grown)
			return -1;
		t->rows = grown;
		t->cap = cap;
	}
	t->rows[t->nr++] = *r;
	return 0;
}

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
		reg = (int)ops[0].number;
		offset = (int64_t)ops[0].number2;
	} else if (nops == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		offset = (int64_t)ops[0].number;
	} else if ((plt = plt_threshold(ops, nops))) {
		r->cfa = plt == 10 ? UNWIND_CFA_PLT10 : UNWIND_CFA_PLT11;
		r->cfa_offset = 8;
		return;
	}
	if ((reg != DWARF_RSP && reg != DWARF_RBP) || offset < INT32_MIN || offset > INT32_MAX)
		return;
	r->cfa = reg == DWARF_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
	r->cfa_offset = (int32_t)offset;
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

static void compile_row(Dwarf_Frame *frame, bool signal, struct unwind_row *r)
{
	int64_t off = 0;
	int ra;

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
	if (ra != 1 || off != -8) {
		r->cfa = UNWIND_CFA_EXPRESSION;
		return;
	}
	switch (saved_at(frame, DWARF_RBP, &off)) {
	case 1:
		if (off < INT16_MIN || off > INT16_MAX) {
			r->cfa = UNWIND_CFA_EXPRESSION;
			return;
		}
		r->rbp = UNWIND_RBP_SAVED;
		r->rbp_offset = (int16_t)off;
		break;
	case -1:
		r->rbp = UNWIND_RBP_UNDEFINED;
		break;
	case 0:
		break;
	default:
		r->cfa = UNWIND_CFA_EXPRESSION;
	}
}

/* The rows of [start, end): one per CFI row libdw finds, a NONE row over
 * each gap. A gap is stepped over a byte at a time (libdw's lookup is a
 * binary search in .eh_frame_hdr): padding between functions. */
/* The frame of pc from the first of cfi (.eh_frame, .debug_frame) that
 * describes it. 0 if one does. */
static int frame_at(Dwarf_CFI *const cfi[2], uint64_t pc, Dwarf_Frame **frame)
{
	for (int i = 0; i < 2; i++)
		if (cfi[i] && !dwarf_cfi_addrframe(cfi[i], pc, frame))
			return 0;
	return -1;
}

static int compile_range(Dwarf_CFI *const cfi[2], uint64_t start, uint64_t end,
			 struct unwind_table *t)
{
	uint64_t pc = start;
	bool in_gap = false;

	while (pc < end) {
		struct unwind_row r = { .pc = pc };
		Dwarf_Frame *frame;
		Dwarf_Addr fstart, fend;
		bool signal = false;

		if (frame_at(cfi, pc, &frame)) {
			if (!in_gap && push_row(t, &r))
				return -1;
			in_gap = true;
			pc++;
			continue;
		}
		in_gap = false;
		if (dwarf_frame_info(frame, &fstart, &fend, &signal) < 0 || fend <= pc)
			fend = pc + 1;
		compile_row(frame, signal, &r);
		free(frame);
		if (r.cfa == UNWIND_CFA_EXPRESSION)
			t->expression_rows++;
		if (push_row(t, &r))
			return -1;
		pc = fend;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The executable sections' [start, end), sorted; or the executable
 * segments' when there are no section headers. */
static size_t code_ranges(Elf *elf, uint64_t (*ranges)[2], size_t max)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, phnum;

	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type == SHT_PROGBITS && sh.sh_size) {
			ranges[n][0] = sh.sh_addr;
			ranges[n++][1] = sh.sh_addr + sh.sh_size;
		}
	}
	if (n == 0 && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum && n < max; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				ranges[n][0] = ph.p_vaddr;
				ranges[n++][1] = ph.p_vaddr + ph.p_memsz;
			}
		}
	}
	qsort(ranges, n, sizeof(ranges[0]), cmp_range);
	return n;
}

static int64_t exec_vaddr_delta(Elf *elf)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			return (int64_t)(ph.p_vaddr - ph.p_offset);
	}
	return 0;
}

const char *unwind_refusal_name(enum unwind_refusal why)
{
	static const char *const names[UNWIND_NR_REFUSALS] = {
		[UNWIND_BUILT] = "built",
		[UNWIND_NOT_ELF] = "not ELF",
		[UNWIND_NO_CFI] = "no CFI",
		[UNWIND_LYING_HEADER] = "lying header",
		[UNWIND_OVER_ROWS] = "over the row budget",
		[UNWIND_OVER_BYTES] = "over the CFI byte budget",
		[UNWIND_OVER_TIME] = "over the time budget",
		[UNWIND_CANCELLED] = "cancelled",
		[UNWIND_NO_MEMORY] = "out of memory",
		[UNWIND_PAST_4GIB] = "code past 4 GiB",
	};

	return (unsigned int)why < UNWIND_NR_REFUSALS ? names[why] : "?";
}

int unwind_table_build(int fd, const struct unwind_budget *budget, struct unwind_table *t,
		       enum unwind_refusal *why, char *err, size_t errlen)
{
	uint64_t ranges[64][2];
	Dwarf_CFI *cfi[2] = { NULL, NULL };
	Dwarf *dwarf = NULL;
	size_t n;
	Elf *elf;
	int ret = -1;

	(void)budget;
	*why = UNWIND_NOT_ELF;
	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		rt_format(err, errlen, "not an ELF file: %s", elf_errmsg(-1));
		goto out;
	}
	cfi[0] = dwarf_getcfi_elf(elf);
	/* .debug_frame, owned by the Dwarf: code built without unwind tables
	 * (-fno-asynchronous-unwind-tables -g), assembly with only debug CFI */
	dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	cfi[1] = dwarf ? dwarf_getcfi(dwarf) : NULL;
	if (!cfi[0] && !cfi[1]) {
		*why = UNWIND_NO_CFI;
		rt_format(err, errlen, "no .eh_frame or .debug_frame: frame pointers unwind it");
		goto out;
	}
	n = code_ranges(elf, ranges, sizeof(ranges) / sizeof(ranges[0]));
	t->exec_vaddr_delta = exec_vaddr_delta(elf);
	ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		ret = compile_range(cfi, ranges[i][0], ranges[i][1], t);
		if (!ret) {
			struct unwind_row end = { .pc = ranges[i][1] };

			ret = push_row(t, &end);
		}
	}
	*why = ret ? UNWIND_NO_MEMORY : UNWIND_BUILT;
	if (ret)
		rt_format(err, errlen, "out of memory for an unwind table");
out:
	if (cfi[0])
		dwarf_cfi_end(cfi[0]);
	if (dwarf)
		dwarf_end(dwarf);
	if (elf)
		elf_end(elf);
	if (ret)
		unwind_table_free(t);
	return ret;
}

const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr;

	if (!t->nr || pc < t->rows[0].pc)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

void unwind_table_free(struct unwind_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
