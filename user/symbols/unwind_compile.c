/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_compile.c: an ELF file's .eh_frame (and its .debug_frame, for code the
 * .eh_frame does not describe) compiled with libdw's CFI API into compact
 * rows (how to find the CFA, the return address, the saved rbp and rbx),
 * FDE by FDE and gap by gap: the work grows with the CFI, never the code. */
#include "symbols/unwind_compile.h"

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
#include "lib/sorted_count.h"
#include "sys/sigbus_guard.h"
#include "symbols/cfi_fdes.h"
#include "symbols/eh_frame_hdr.h"
#include "symbols/elf_open.h"
#include "symbols/unwind_row.h"
#include "symbols/go_runtime.h"
#include "symbols/unwind_elf.h"

static bool same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa == b->cfa && a->cfa_offset == b->cfa_offset && a->cfa_reg == b->cfa_reg &&
	       a->rbp == b->rbp && a->rbp_offset == b->rbp_offset && a->rbx == b->rbx &&
	       a->rbx_offset == b->rbx_offset && a->debug_frame == b->debug_frame;
}

enum unwind_seam unwind_row_seam(const struct unwind_row *last, const struct unwind_row *r)
{
	/* the same rule as the row before: that row covers it too */
	if (same_rule(last, r))
		return UNWIND_SEAM_COVERED;
	return last->pc == r->pc ? UNWIND_SEAM_REPLACES : UNWIND_SEAM_FOLLOWS;
}

static int push_row(struct unwind_table *t, const struct unwind_row *r)
{
	if (t->nr) {
		struct unwind_row *last = &t->rows[t->nr - 1];

		switch (unwind_row_seam(last, r)) {
		case UNWIND_SEAM_COVERED:
			return 0;
		case UNWIND_SEAM_REPLACES:
			*last = *r;
			return 0;
		case UNWIND_SEAM_FOLLOWS:
			break;
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

/* One compile: its table, its budget and what it has spent. */
struct compile {
	struct unwind_table *t;
	const struct unwind_budget *budget;
	const struct unwind_stage *stage; /* NULL: in one go */
	size_t part_from, part_to;        /* a part's FDEs (share_of_part) */
	double cpu_start;
	unsigned int work;   /* since the clock was last read */
	unsigned int weight; /* of a step: a row of a long FDE costs more */
	const Dwarf_CFI *debug_cfi; /* .debug_frame's (its rows are counted apart) */
	uint64_t entry;             /* the file's entry point (0: none) */
	struct go_runtime go;       /* a Go executable's runtime functions */
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

/* go_on for the walks (cfi_fdes_collect): asked every 256 entries or 16 KB
 * walked, each call a clock read (one weight would read it every 256 calls:
 * 65,536 entries, each of which may cost a CIE's re-walk) */
static enum unwind_refusal walk_go_on(void *arg)
{
	struct compile *c = arg;

	c->work = 256;
	return go_on(c);
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
		unwind_row_of_frame(frame, signal, &r);
		r.debug_frame = cfi == c->debug_cfi;
		free(frame);
		if (c->go.is_go && r.debug_frame)
			go_runtime_complete_row(&c->go, &r);
		if (r.cfa == UNWIND_CFA_EXPRESSION)
			c->t->expression_rows++;
		why = push(c, &r);
		pc = end;
	}
	c->weight = 1;
	return why;
}

/* The first stage's rows of [lo, hi), one FDE's, as it compiled them. */
static enum unwind_refusal copy_first_stage(struct compile *c, uint64_t lo, uint64_t hi)
{
	const struct unwind_table *first = c->stage->first;
	const struct unwind_row *r = unwind_table_find(first, lo);
	enum unwind_refusal why = UNWIND_BUILT;
	struct unwind_row at_lo;

	if (!r) /* not in the first stage's table: it compiled none here */
		return push(c, &(struct unwind_row){ .pc = lo });
	at_lo = *r;
	at_lo.pc = lo;
	why = push(c, &at_lo);
	for (r++; why == UNWIND_BUILT && r < first->rows + first->nr && r->pc < hi; r++) {
		if (r->cfa == UNWIND_CFA_EXPRESSION)
			c->t->expression_rows++;
		why = push(c, r);
	}
	return why;
}

/* One FDE's rows over [lo, hi): compiled, or as the stage says. */
static enum unwind_refusal stage_fde(struct compile *c, Dwarf_CFI *cfi,
				     const struct cfi_fde_range *fde, uint64_t lo, uint64_t hi)
{
	bool long_fde;

	if (!c->stage)
		return compile_fde(c, cfi, fde, lo, hi);
	long_fde = fde->cfi_bytes > c->stage->defer_over_cfi_bytes;
	if (c->stage->first && !long_fde)
		return copy_first_stage(c, lo, hi);
	if (!c->stage->first && long_fde) {
		c->t->deferred_fdes++;
		return push(c, &(struct unwind_row){ .pc = lo });
	}
	return compile_fde(c, cfi, fde, lo, hi);
}

/* Whether FDE i of nr is this compile's to turn into rows: every one, or,
 * for a part, those of its share (from part_from on, before part_to). */
static bool ours(const struct compile *c, size_t i, size_t nr)
{
	if (!c->stage || c->stage->parts < 2)
		return true;
	if (!nr)
		return c->stage->part == 0;
	return i >= c->part_from && i < c->part_to;
}

/* A part's share of the FDEs (sorted): a run of them in address order whose
 * work, as their CFI bytes measure it (a deferred FDE's none; a lookup's
 * worth each), is its equal share. */
static void share_of_part(struct compile *c, const struct cfi_fde_ranges *fdes)
{
	const struct unwind_stage *s = c->stage;
	uint64_t total = 0, sum = 0, from, to;
	size_t i;

	c->part_from = 0;
	c->part_to = fdes->nr;
	if (!s || s->parts < 2)
		return;
	for (i = 0; i < fdes->nr; i++)
		total += 32 + (fdes->v[i].cfi_bytes > s->defer_over_cfi_bytes ? 0 : fdes->v[i].cfi_bytes);
	from = total * s->part / s->parts;
	to = total * (s->part + 1) / s->parts;
	c->part_from = c->part_to = fdes->nr;
	for (i = 0; i < fdes->nr; i++) {
		if (sum >= from && c->part_from == fdes->nr)
			c->part_from = i;
		if (sum >= to) {
			c->part_to = i;
			break;
		}
		sum += 32 + (fdes->v[i].cfi_bytes > s->defer_over_cfi_bytes ? 0 : fdes->v[i].cfi_bytes);
	}
	if (s->part + 1 == s->parts)
		c->part_to = fdes->nr;
	if (c->part_from > c->part_to)
		c->part_from = c->part_to;
}

/* The rows of a gap [pc, hi) between FDEs: frame pointers (a NONE row), but
 * from the entry point on when it is there: the process's first code, the
 * outermost frame (ld.so's _start and _dl_start_user have no CFI). */
static enum unwind_refusal push_gap(struct compile *c, uint64_t pc, uint64_t hi)
{
	enum unwind_refusal why = UNWIND_BUILT;
	const struct go_runtime_function *f = go_runtime_function_at(&c->go, hi);

	/* Go's signal return, where a handler's return address (its start)
	 * is looked up as any return address is: at the byte before it */
	if (f && f->start == hi && f->kind == GO_SIGNAL_RETURN && hi - 1 > pc) {
		why = push_gap(c, pc, hi - 1);
		if (why == UNWIND_BUILT)
			why = push(c, &(struct unwind_row){ .pc = hi - 1, .cfa = UNWIND_CFA_SIGNAL });
		return why;
	}
	if (c->entry <= pc || c->entry >= hi)
		return push(c, &(struct unwind_row){ .pc = pc });
	if (c->entry > pc)
		why = push(c, &(struct unwind_row){ .pc = pc });
	if (why == UNWIND_BUILT)
		why = push(c, &(struct unwind_row){ .pc = c->entry, .cfa = UNWIND_CFA_OUTERMOST });
	return why;
}

/* The rows of the code at [start, end): each FDE's (fdes from *first on,
 * sorted, not overlapping), one NONE row over each gap (push_gap), and a NONE
 * row at end. *first moves past the FDEs that end before start. */
static enum unwind_refusal compile_code(struct compile *c, Dwarf_CFI *const cfi[2],
					const struct cfi_fde_ranges *fdes, size_t *first,
					uint64_t start, uint64_t end)
{
	const struct unwind_row at_end = { .pc = end };
	enum unwind_refusal why;
	uint64_t pc = start;

	size_t i;

	while (*first < fdes->nr && fdes->v[*first].hi <= start)
		(*first)++;
	for (i = *first; i < fdes->nr && fdes->v[i].lo < end; i++) {
		uint64_t lo = fdes->v[i].lo > pc ? fdes->v[i].lo : pc;
		uint64_t hi = fdes->v[i].hi < end ? fdes->v[i].hi : end;

		if (lo >= hi)
			continue;
		if (ours(c, i, fdes->nr)) {
			if (lo > pc && (why = push_gap(c, pc, lo)) != UNWIND_BUILT)
				return why;
			why = stage_fde(c, cfi[fdes->v[i].source], &fdes->v[i], lo, hi);
			if (why != UNWIND_BUILT)
				return why;
		}
		pc = hi;
	}
	/* the code's end: the part of the FDE after it (the last part's if none) */
	if (!ours(c, i < fdes->nr ? i : fdes->nr - 1, fdes->nr))
		return UNWIND_BUILT;
	if (pc < end && (why = push_gap(c, pc, end)) != UNWIND_BUILT)
		return why;
	return push(c, &at_end);
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

static void unknown_fde_message(const char *section, char *err, size_t errlen)
{
	rt_format(err, errlen,
		  "an FDE of %s has an address or a CIE augmentation encoded as no "
		  "toolchain writes it: not read as libdw would",
		  section);
}

/* The FDE ranges of both sections, sorted, .eh_frame's winning; and the
 * .eh_frame_hdr libdw searches checked to name only FDEs read. */
static enum unwind_refusal collect_fdes(struct compile *c, Elf *elf,
					const struct cfi_section sec[2], Dwarf_CFI *const cfi[2],
					struct cfi_fde_ranges *fdes, char *err, size_t errlen)
{
	struct cfi_fde_ranges debug = { 0 };
	struct cfi_fde_starts starts = { 0 };
	enum unwind_refusal why = UNWIND_BUILT;
	size_t max = c->budget->max_rows;

	/* each FDE in the code is a row at least: past max_rows, so is the table */
	if (cfi[0])
		why = cfi_fdes_collect(elf, &sec[0], true, max, walk_go_on, c, fdes, &starts);
	if (why == UNWIND_BUILT && cfi[0])
		why = eh_frame_hdr_check(elf, &sec[0], &starts, err, errlen);
	else if (why == UNWIND_UNKNOWN_CFI)
		unknown_fde_message(".eh_frame", err, errlen);
	cfi_fde_starts_free(&starts);
	if (why == UNWIND_BUILT && cfi[1]) {
		why = cfi_fdes_collect(elf, &sec[1], false, max, walk_go_on, c, &debug, NULL);
		if (why == UNWIND_UNKNOWN_CFI)
			unknown_fde_message(".debug_frame", err, errlen);
	}
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
	case UNWIND_NO_MEMORY:
		rt_format(err, errlen, "out of memory for an unwind table");
		break;
	default: /* said by the check that refused */
		break;
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
	GElf_Ehdr eh;

	c->debug_cfi = cfi[1];
	c->entry = gelf_getehdr(elf, &eh) ? eh.e_entry : 0;
	go_runtime_of_elf(elf, &c->go);

	why = collect_fdes(c, elf, sec, cfi, &fdes, err, errlen);
	share_of_part(c, &fdes);
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

static int build(int fd, const struct unwind_budget *budget, const struct unwind_stage *stage,
		 struct unwind_table *t, enum unwind_refusal *why, char *err, size_t errlen)
{
	static const struct unwind_budget defaults = {
		.max_rows = UNWIND_DEFAULT_MAX_ROWS,
		.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
		.max_seconds = UNWIND_DEFAULT_MAX_SECONDS,
	};
	struct compile c = { .t = t, .budget = budget ? budget : &defaults, .stage = stage,
			     .weight = 1 };
	Dwarf_CFI *cfi[2] = { NULL, NULL };
	struct cfi_section sec[2] = { { 0 }, { 0 } };
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
	if (!elf && errno == EBADMSG) {
		*why = UNWIND_LYING_HEADER;
		rt_format(err, errlen,
			  "extended section numbering, or a string table compressed or not "
			  "ending with NUL: libelf would pay for them without bound");
		goto out;
	}
	if (!elf) {
		rt_format(err, errlen, "not an ELF file");
		goto out;
	}
	*why = unwind_elf_check_claims(elf, (uint64_t)st.st_size, err, errlen);
	if (*why != UNWIND_BUILT)
		goto out;
	eh_frame = unwind_elf_section(elf, ".eh_frame");
	debug_frame = unwind_elf_debug_frame(elf);
	if (eh_frame && gelf_getshdr(eh_frame, &sh)) {
		sec[0].data = elf_rawdata(eh_frame, NULL);
		sec[0].vaddr = sh.sh_addr;
		sec[0].budget_bytes = sec[0].data ? sec[0].data->d_size : 0;
	} else if (!eh_frame) { /* no section headers: where .eh_frame_hdr says */
		*why = eh_frame_hdr_eh_frame(elf, &sec[0], err, errlen);
		if (*why != UNWIND_BUILT)
			goto out;
	}
	bytes = (sec[0].data ? sec[0].budget_bytes : 0) + unwind_elf_section_bytes(debug_frame);
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
		rt_format(err, errlen, "no .eh_frame, nor a single .debug_frame: frame pointers unwind it");
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
		return -unwind_refusal_errno(*why);
	}
	return 0;
}

struct build_call {
	int fd;
	const struct unwind_budget *budget;
	const struct unwind_stage *stage;
	struct unwind_table *t;
	enum unwind_refusal *why;
	char *err;
	size_t errlen;
};

static int build_guarded(void *arg)
{
	struct build_call *b = arg;

	return build(b->fd, b->budget, b->stage, b->t, b->why, b->err, b->errlen);
}

/* The file is read through a mapping: its owner may truncate it meanwhile.
 * What the compile had allocated then is lost (a file is compiled once). */
int unwind_table_build_staged(int fd, const struct unwind_budget *budget,
			      const struct unwind_stage *stage, struct unwind_table *t,
			      enum unwind_refusal *why, char *err, size_t errlen)
{
	struct build_call b = { fd, budget, stage, t, why, err, errlen };

	if (sigbus_guard_run(build_guarded, &b) != SIGBUS_GUARD_FAULT)
		return -unwind_refusal_errno(*why);
	*why = UNWIND_FILE_CHANGED;
	rt_format(err, errlen, "the file shrank while it was read");
	memset(t, 0, sizeof(*t));
	return -ESTALE;
}

int unwind_table_join(struct unwind_table *parts, unsigned int n, struct unwind_table *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int p = 0; p < n; p++) {
		for (size_t i = 0; i < parts[p].nr; i++)
			if (push_row(out, &parts[p].rows[i])) {
				unwind_table_free(out);
				return -ENOMEM;
			}
		out->expression_rows += parts[p].expression_rows;
		out->deferred_fdes += parts[p].deferred_fdes;
	}
	if (n)
		out->exec_vaddr_delta = parts[0].exec_vaddr_delta;
	return 0;
}

int unwind_table_build(int fd, const struct unwind_budget *budget, struct unwind_table *t,
		       enum unwind_refusal *why, char *err, size_t errlen)
{
	return unwind_table_build_staged(fd, budget, NULL, t, why, err, errlen);
}

const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	size_t n = sorted_count_at_or_below(t->rows, t->nr, sizeof(*t->rows),
					    offsetof(struct unwind_row, pc), pc);

	return n ? &t->rows[n - 1] : NULL;
}

void unwind_table_free(struct unwind_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
