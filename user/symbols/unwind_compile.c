/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_compile.c: an ELF file's .eh_frame (and its .debug_frame, for code the
 * .eh_frame does not describe) compiled with libdw's CFI API into compact
 * rows (how to find the CFA, the return address, the saved rbp and rbx),
 * FDE by FDE and gap by gap: the work grows with the CFI, never the code. */
#include "symbols/unwind_compile.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "lib/log.h"
#include "sys/sigbus_guard.h"
#include "symbols/cfi_fdes.h"
#include "symbols/elf_open.h"
#include "symbols/unwind_elf.h"

/* DWARF register numbers of x86-64: rax 0, rdx 1, rcx 2, rbx 3, rsi 4,
 * rdi 5, rbp 6, rsp 7, r8-r15 8-15, the return address 16. */
#define DWARF_RBX 3
#define DWARF_RBP 6
#define DWARF_RSP 7
#define DWARF_R15 15
#define DWARF_RA 16

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa == b->cfa && a->cfa_offset == b->cfa_offset && a->cfa_reg == b->cfa_reg &&
	       a->rbp == b->rbp && a->rbp_offset == b->rbp_offset && a->rbx == b->rbx &&
	       a->rbx_offset == b->rbx_offset;
}

static int push_row(struct unwind_table *t, const struct unwind_row *r)
{
	if (t->nr) {
		struct unwind_row *last = &t->rows[t->nr - 1];

		/* the same rule as the row before: that row covers it too */
		if (same_rule(last, r))
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
			return -ENOMEM;
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

/* One compile: its table, its budget and what it has spent. */
struct compile {
	struct unwind_table *t;
	const struct unwind_budget *budget;
	double cpu_start;
	unsigned int work;   /* since the clock was last read */
	unsigned int weight; /* of a step: a row of a long FDE costs more */
};

static double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Asked before each row and every 256 FDEs: the cancel flag each time, the
 * clock every 256 steps of ordinary weight (a step is microseconds: a
 * cancel is answered within a millisecond, the budget within a few). */
static enum unwind_refusal go_on(void *arg)
{
	struct compile *c = arg;

	if (c->budget->cancel && atomic_load_explicit(c->budget->cancel, memory_order_relaxed))
		return UNWIND_CANCELLED;
	c->work += c->weight;
	if (c->work >= 256) {
		c->work = 0;
		if (thread_cpu_seconds() - c->cpu_start > c->budget->max_seconds)
			return UNWIND_OVER_TIME;
	}
	return UNWIND_BUILT;
}

static enum unwind_refusal push(struct compile *c, const struct unwind_row *r)
{
	if (push_row(c->t, r))
		return UNWIND_NO_MEMORY;
	return c->t->nr > c->budget->max_rows ? UNWIND_OVER_ROWS : UNWIND_BUILT;
}

/* The rows of [lo, hi), described by one FDE of cfi: one per CFI row libdw
 * steps to (each lookup finds the FDE by binary search, then runs its
 * instructions from the start: a row weighs as much as they). */
static enum unwind_refusal compile_fde(struct compile *c, Dwarf_CFI *cfi,
				       const struct cfi_fde_range *fde, uint64_t lo, uint64_t hi)
{
	enum unwind_refusal why = UNWIND_BUILT;

	c->weight = 1 + fde->cfi_bytes / 256;
	for (uint64_t pc = lo; pc < hi && why == UNWIND_BUILT;) {
		struct unwind_row r = { .pc = pc };
		Dwarf_Frame *frame;
		Dwarf_Addr start, end;
		bool signal = false;

		if ((why = go_on(c)) != UNWIND_BUILT)
			break;
		/* libdw finds no FDE after all (its .eh_frame_hdr disagrees):
		 * frame pointers for the rest */
		if (dwarf_cfi_addrframe(cfi, pc, &frame)) {
			why = push(c, &r);
			break;
		}
		if (dwarf_frame_info(frame, &start, &end, &signal) < 0 || end <= pc || end > hi)
			end = hi;
		compile_row(frame, signal, &r);
		free(frame);
		if (r.cfa == UNWIND_CFA_EXPRESSION)
			c->t->expression_rows++;
		why = push(c, &r);
		pc = end;
	}
	c->weight = 1;
	return why;
}

/* The rows of the code at [start, end): each FDE's (fdes from *first on,
 * sorted, not overlapping), one NONE row over each gap, and a NONE row at
 * end. *first moves past the FDEs that end before start. */
static enum unwind_refusal compile_code(struct compile *c, Dwarf_CFI *const cfi[2],
					const struct cfi_fde_ranges *fdes, size_t *first,
					uint64_t start, uint64_t end)
{
	const struct unwind_row at_end = { .pc = end };
	enum unwind_refusal why;
	uint64_t pc = start;

	while (*first < fdes->nr && fdes->v[*first].hi <= start)
		(*first)++;
	for (size_t i = *first; i < fdes->nr && fdes->v[i].lo < end; i++) {
		uint64_t lo = fdes->v[i].lo > pc ? fdes->v[i].lo : pc;
		uint64_t hi = fdes->v[i].hi < end ? fdes->v[i].hi : end;
		const struct unwind_row gap = { .pc = pc };

		if (lo >= hi)
			continue;
		if (lo > pc && (why = push(c, &gap)) != UNWIND_BUILT)
			return why;
		why = compile_fde(c, cfi[fdes->v[i].source], &fdes->v[i], lo, hi);
		if (why != UNWIND_BUILT)
			return why;
		pc = hi;
	}
	if (pc < end) {
		const struct unwind_row gap = { .pc = pc };

		if ((why = push(c, &gap)) != UNWIND_BUILT)
			return why;
	}
	return push(c, &at_end);
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
		[UNWIND_FILE_CHANGED] = "file shrank while read",
	};

	return (unsigned int)why < UNWIND_NR_REFUSALS ? names[why] : "?";
}

/* .debug_frame's bytes: libdw decompressed them if they were compressed
 * (dwarf_begin_elf); if it did not, they are decompressed here. */
static Elf_Data *debug_frame_data(Elf_Scn *scn)
{
	GElf_Shdr sh;

	if (!gelf_getshdr(scn, &sh) ||
	    ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0))
		return NULL;
	return elf_getdata(scn, NULL);
}

/* The FDE ranges of both sections, sorted, .eh_frame's winning. */
static enum unwind_refusal collect_fdes(struct compile *c, Elf *elf,
					const struct cfi_section sec[2], Dwarf_CFI *const cfi[2],
					struct cfi_fde_ranges *fdes)
{
	struct cfi_fde_ranges debug = { 0 };
	enum unwind_refusal why = UNWIND_BUILT;
	size_t max = c->budget->max_rows;

	/* each FDE in the code is a row at least: past max_rows, so is the table */
	if (cfi[0])
		why = cfi_fdes_collect(elf, &sec[0], true, max, go_on, c, fdes);
	if (why == UNWIND_BUILT && cfi[1])
		why = cfi_fdes_collect(elf, &sec[1], false, max, go_on, c, &debug);
	if (why == UNWIND_BUILT) {
		cfi_fdes_sort(fdes);
		cfi_fdes_sort(&debug);
		if (cfi_fdes_combine(fdes, &debug))
			why = UNWIND_NO_MEMORY;
	}
	cfi_fdes_free(&debug);
	return why;
}

static void refusal_message(enum unwind_refusal why, const struct compile *c, char *err,
			    size_t errlen)
{
	switch (why) {
	case UNWIND_OVER_ROWS:
		rt_format(err, errlen, "more than %" PRIu64 " unwind rows", c->budget->max_rows);
		break;
	case UNWIND_OVER_TIME:
		rt_format(err, errlen, "compiling took more than %.3f s of CPU",
			  c->budget->max_seconds);
		break;
	case UNWIND_CANCELLED:
		rt_format(err, errlen, "compiling was cancelled");
		break;
	default:
		rt_format(err, errlen, "out of memory for an unwind table");
	}
}

/* Compiles the open ELF file's rows into c->t. */
static enum unwind_refusal compile_file(struct compile *c, Elf *elf,
					const struct cfi_section sec[2], Dwarf_CFI *const cfi[2],
					char *err, size_t errlen)
{
	struct cfi_fde_ranges fdes = { 0 };
	struct code_range *code = NULL;
	enum unwind_refusal why;
	size_t first = 0;
	ssize_t n = 0;

	why = collect_fdes(c, elf, sec, cfi, &fdes);
	if (why == UNWIND_BUILT && (n = unwind_elf_code_ranges(elf, &code)) < 0)
		why = UNWIND_NO_MEMORY;
	for (ssize_t i = 0; why == UNWIND_BUILT && i < n; i++)
		why = compile_code(c, cfi, &fdes, &first, code[i].start, code[i].end);
	if (why != UNWIND_BUILT)
		refusal_message(why, c, err, errlen);
	free(code);
	cfi_fdes_free(&fdes);
	return why;
}

/* The errno a refusal returns as. */
static int refusal_errno(enum unwind_refusal why)
{
	switch (why) {
	case UNWIND_BUILT:
		return 0;
	case UNWIND_NOT_ELF:
		return ENOEXEC;
	case UNWIND_NO_CFI:
		return ENOENT;
	case UNWIND_OVER_ROWS:
		return E2BIG;
	case UNWIND_OVER_BYTES:
		return EFBIG;
	case UNWIND_OVER_TIME:
		return ETIME;
	case UNWIND_CANCELLED:
		return ECANCELED;
	case UNWIND_NO_MEMORY:
		return ENOMEM;
	case UNWIND_PAST_4GIB:
		return ERANGE;
	case UNWIND_FILE_CHANGED:
		return ESTALE;
	default:
		return EINVAL; /* UNWIND_LYING_HEADER */
	}
}

static int build(int fd, const struct unwind_budget *budget, struct unwind_table *t,
		 enum unwind_refusal *why, char *err, size_t errlen)
{
	static const struct unwind_budget defaults = {
		.max_rows = UNWIND_DEFAULT_MAX_ROWS,
		.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
		.max_seconds = UNWIND_DEFAULT_MAX_SECONDS,
	};
	struct compile c = { .t = t, .budget = budget ? budget : &defaults, .weight = 1 };
	Dwarf_CFI *cfi[2] = { NULL, NULL };
	struct cfi_section sec[2] = { { NULL, 0 }, { NULL, 0 } };
	Elf_Scn *eh_frame, *debug_frame;
	Dwarf *dwarf = NULL;
	Elf *elf = NULL;
	struct stat st;
	GElf_Shdr sh;
	uint64_t bytes;

	c.cpu_start = thread_cpu_seconds();
	*why = UNWIND_NOT_ELF;
	memset(t, 0, sizeof(*t));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rt_format(err, errlen, "not a regular file");
		goto out;
	}
	elf = elf_open_fd(fd);
	if (!elf) {
		rt_format(err, errlen, "not an ELF file");
		goto out;
	}
	*why = unwind_elf_check_claims(elf, (uint64_t)st.st_size, err, errlen);
	if (*why != UNWIND_BUILT)
		goto out;
	eh_frame = unwind_elf_section(elf, ".eh_frame");
	debug_frame = unwind_elf_section(elf, ".debug_frame");
	if (eh_frame && gelf_getshdr(eh_frame, &sh)) {
		sec[0].data = elf_rawdata(eh_frame, NULL);
		sec[0].vaddr = sh.sh_addr;
	} else if (!eh_frame) { /* no section headers: where .eh_frame_hdr says */
		cfi_fdes_eh_frame_of_segments(elf, &sec[0]);
	}
	bytes = (sec[0].data ? sec[0].data->d_size : 0) + unwind_elf_section_bytes(debug_frame);
	if (bytes > c.budget->max_cfi_bytes) {
		*why = UNWIND_OVER_BYTES;
		rt_format(err, errlen, "%" PRIu64 " bytes of CFI, over the budget of %" PRIu64,
			  bytes, c.budget->max_cfi_bytes);
		goto out;
	}
	/* dwarf_begin_elf inflates every compressed debug section, not only
	 * .debug_frame: past the budget with them, .debug_frame goes unread */
	if (debug_frame &&
	    bytes + unwind_elf_inflated_bytes(elf, debug_frame) > c.budget->max_cfi_bytes) {
		if (!sec[0].data) {
			*why = UNWIND_OVER_BYTES;
			rt_format(err, errlen,
				  ".debug_frame needs %" PRIu64 " bytes of compressed DWARF "
				  "inflated, over the budget of %" PRIu64,
				  unwind_elf_inflated_bytes(elf, debug_frame),
				  c.budget->max_cfi_bytes);
			goto out;
		}
		debug_frame = NULL;
	}
	cfi[0] = sec[0].data ? dwarf_getcfi_elf(elf) : NULL;
	/* .debug_frame, owned by the Dwarf: code built without unwind tables
	 * (-fno-asynchronous-unwind-tables -g), assembly with only debug CFI */
	dwarf = debug_frame ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	cfi[1] = dwarf ? dwarf_getcfi(dwarf) : NULL;
	if (cfi[1])
		sec[1].data = debug_frame_data(debug_frame);
	if (!cfi[0] && !cfi[1]) {
		*why = UNWIND_NO_CFI;
		rt_format(err, errlen, "no .eh_frame or .debug_frame: frame pointers unwind it");
		goto out;
	}
	t->exec_vaddr_delta = unwind_elf_exec_vaddr_delta(elf);
	*why = compile_file(&c, elf, sec, cfi, err, errlen);
out:
	if (cfi[0])
		dwarf_cfi_end(cfi[0]);
	if (dwarf)
		dwarf_end(dwarf);
	if (elf)
		elf_end(elf);
	if (*why != UNWIND_BUILT) {
		unwind_table_free(t);
		return -refusal_errno(*why);
	}
	return 0;
}

struct build_call {
	int fd;
	const struct unwind_budget *budget;
	struct unwind_table *t;
	enum unwind_refusal *why;
	char *err;
	size_t errlen;
};

static int build_guarded(void *arg)
{
	struct build_call *b = arg;

	return build(b->fd, b->budget, b->t, b->why, b->err, b->errlen);
}

/* The file is read through a mapping: its owner may truncate it meanwhile.
 * What the compile had allocated then is lost (a file is compiled once). */
int unwind_table_build(int fd, const struct unwind_budget *budget, struct unwind_table *t,
		       enum unwind_refusal *why, char *err, size_t errlen)
{
	struct build_call b = { fd, budget, t, why, err, errlen };

	if (sigbus_guard_run(build_guarded, &b) != SIGBUS_GUARD_FAULT)
		return -refusal_errno(*why);
	*why = UNWIND_FILE_CHANGED;
	rt_format(err, errlen, "the file shrank while it was read");
	memset(t, 0, sizeof(*t));
	return -ESTALE;
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
