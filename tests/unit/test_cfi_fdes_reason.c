/* SPDX-License-Identifier: GPL-2.0-only */
/* test_cfi_fdes_reason.c: what the walk of an .eh_frame lets libdw run, on
 * sections made by hand: an FDE whose expressions, CIE or neighbours would
 * cost libdw more than reason is left out, the file's expressions and
 * CIE states are budgeted, the walk reads on past an entry libdw skips, asks for the time
 * as it walks, and refuses augmentations libdw reads otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/cfi_fdes.h"

#define SECTION_VADDR 0x2000u

/* An .eh_frame being made. */
struct section {
	uint8_t *b;
	size_t len, cap;
};

static void put(struct section *s, const void *bytes, size_t n)
{
	if (!n)
		return;
	if (s->len + n > s->cap) {
		s->cap = (s->len + n) * 2;
		s->b = realloc(s->b, s->cap);
		assert_non_null(s->b);
	}
	memcpy(s->b + s->len, bytes, n);
	s->len += n;
}

static void put32(struct section *s, size_t at, uint32_t v)
{
	memcpy(s->b + at, &v, 4);
}

/* An entry's length field, filled in by end_entry. */
static size_t begin_entry(struct section *s)
{
	static const uint8_t none[4];
	size_t at = s->len;

	put(s, none, 4);
	return at;
}

/* Pads the entry begun at at with DW_CFA_nop to 4 bytes and sets its length. */
static void end_entry(struct section *s, size_t at)
{
	static const uint8_t nop[4];

	put(s, nop, (4 - s->len % 4) % 4);
	put32(s, at, (uint32_t)(s->len - at - 4));
}

/* A CIE of augmentation aug (its data augdata): code alignment 1, data
 * alignment -8, return address register 16, CFA rsp+8 and the return
 * address at CFA-8, the instructions more, then nops bytes of DW_CFA_nop.
 * Its offset. */
static size_t cie_with(struct section *s, const char *aug, const uint8_t *augdata,
		       uint8_t augdata_len, const uint8_t *more, size_t more_len, size_t nops)
{
	static const uint8_t head[] = { 0, 0, 0, 0, 1 };
	static const uint8_t tail[] = { 1, 0x78, 16 };
	static const uint8_t rules[] = { DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1 };
	size_t at = begin_entry(s);
	uint8_t *zeros = calloc(1, nops + 1);

	assert_non_null(zeros);
	put(s, head, sizeof(head));
	put(s, aug, strlen(aug) + 1);
	put(s, tail, sizeof(tail));
	put(s, &augdata_len, 1);
	put(s, augdata, augdata_len);
	put(s, rules, sizeof(rules));
	put(s, more, more_len);
	put(s, zeros, nops);
	free(zeros);
	end_entry(s, at);
	return at;
}

static size_t cie(struct section *s, const char *aug, const uint8_t *augdata, uint8_t augdata_len,
		  size_t nops)
{
	return cie_with(s, aug, augdata, augdata_len, NULL, 0, nops);
}

/* A "zR" CIE whose FDEs' addresses are absolute 4 bytes (udata4). */
static size_t plain_cie(struct section *s, size_t nops)
{
	static const uint8_t udata4[] = { DW_EH_PE_udata4 };

	return cie(s, "zR", udata4, 1, nops);
}

/* An FDE of the CIE at cie_at over [lo, lo + size): after one row, its CFA
 * is an expression of expression_bytes DW_OP_lit0 (none: no expression). */
static void fde(struct section *s, size_t cie_at, uint32_t lo, uint32_t size,
		size_t expression_bytes)
{
	static const uint8_t advance[] = { 0, DW_CFA_advance_loc | 4 };
	size_t at = begin_entry(s);
	uint8_t leb[8], *ops;
	size_t n = 0;

	put(s, &(uint32_t){ (uint32_t)(s->len - cie_at) }, 4);
	put(s, &lo, 4);
	put(s, &size, 4);
	put(s, advance, sizeof(advance)); /* augmentation length 0, then the row */
	if (expression_bytes) {
		uint8_t op = DW_CFA_def_cfa_expression;

		put(s, &op, 1);
		for (size_t v = expression_bytes; v || !n; v >>= 7)
			leb[n++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
		put(s, leb, n);
		ops = calloc(1, expression_bytes); /* DW_OP_lit0 is 0x30 */
		assert_non_null(ops);
		memset(ops, DW_OP_lit0, expression_bytes);
		put(s, ops, expression_bytes);
		free(ops);
	}
	end_entry(s, at);
}

/* Calls of go_on, counted. */
static enum unwind_refusal count_go_on(void *arg)
{
	(*(size_t *)arg)++;
	return UNWIND_BUILT;
}

/* The walk of s as an .eh_frame at SECTION_VADDR: its ranges into out,
 * go_on's calls into *asked; the refusal. */
static enum unwind_refusal walk(struct section *s, struct cfi_fde_ranges *out, size_t *asked)
{
	static uint8_t image[sizeof(Elf64_Ehdr)];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf_Data data = { .d_buf = s->b, .d_size = s->len, .d_type = ELF_T_BYTE,
			  .d_version = EV_CURRENT };
	struct cfi_section sec = { .data = &data, .vaddr = SECTION_VADDR };
	enum unwind_refusal why;
	size_t calls = 0;
	Elf *elf;

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)image, sizeof(image));
	assert_non_null(elf);
	memset(out, 0, sizeof(*out));
	why = cfi_fdes_collect(elf, &sec, true, SIZE_MAX, count_go_on, &calls, out, NULL);
	elf_end(elf);
	if (asked)
		*asked = calls;
	return why;
}

/* libdw interns each expression a row uses, 32 bytes an operation, until
 * the compile ends: an FDE of a 2000-byte CFA expression is left out, one
 * of 100 bytes kept; and of FDEs of 1000 bytes each, the file keeps 1 MiB. */
static void test_expressions_are_budgeted(void **state)
{
	struct cfi_fde_ranges out;
	struct section s = { 0 };
	size_t at = plain_cie(&s, 0);

	(void)state;
	fde(&s, at, 0x1000, 0x40, 2000);
	fde(&s, at, 0x1040, 0x40, 100);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 1);
	assert_int_equal(out.v[0].lo, 0x1040);
	cfi_fdes_free(&out);

	s.len = 0;
	at = plain_cie(&s, 0);
	for (uint32_t i = 0; i < 1100; i++)
		fde(&s, at, 0x10000 + i * 0x10, 0x10, 1000);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, (1u << 20) / 1000);
	cfi_fdes_free(&out);
	free(s.b);
}

/* A CIE of initial instructions past 64 KB is not walked, and its FDEs are
 * left out; the walk of CIEs taking turns in its cache (9 of 60 KB, each
 * walked again for each FDE) asks go_on after each entry that takes it
 * past 16 KB walked (before, every 256 entries: 3 times). */
static void test_long_cies_are_bounded(void **state)
{
	struct cfi_fde_ranges out;
	struct section s = { 0 };
	size_t cies[9], asked = 0, big = plain_cie(&s, 70 << 10);

	(void)state;
	fde(&s, big, 0x1000, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 0);
	cfi_fdes_free(&out);

	s.len = 0;
	for (size_t i = 0; i < 9; i++)
		cies[i] = plain_cie(&s, 60 << 10);
	for (uint32_t i = 0; i < 900; i++)
		fde(&s, cies[i % 9], 0x10000 + i * 0x10, 0x10, 0);
	assert_int_equal(walk(&s, &out, &asked), UNWIND_BUILT);
	assert_int_equal(out.nr, 900);
	print_message("900 FDEs of 9 CIEs of 60 KB: go_on asked %zu times\n", asked);
	assert_true(asked >= 900);
	cfi_fdes_free(&out);
	free(s.b);
}

/* libdw keeps each CIE's initial state (a frame up to the largest register
 * it names, 8 bytes each) until the compile ends: of 30,000 CIEs naming
 * register 127, each with an FDE, the FDEs of those within 32 MiB of them
 * are kept, the rest left out. */
static void test_cie_states_are_budgeted(void **state)
{
	static const uint8_t undefined_127[] = { DW_CFA_undefined, 127 };
	static const uint8_t udata4[] = { DW_EH_PE_udata4 };
	struct cfi_fde_ranges out;
	struct section s = { 0 };

	(void)state;
	for (uint32_t i = 0; i < 30000; i++) {
		size_t at = cie_with(&s, "zR", udata4, 1, undefined_127, sizeof(undefined_127), 0);

		fde(&s, at, 0x10000 + i * 0x10, 0x10, 0);
	}
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	print_message("30000 CIEs naming register 127: %zu FDEs kept\n", out.nr);
	assert_int_equal(out.nr, (32u << 20) / (256 + 8 * 128));
	cfi_fdes_free(&out);
	free(s.b);
}

/* A CIE's state is libdw's once however many FDEs name it, in whatever
 * order: of 9 CIEs naming register 127, FDEs naming them in turn (one more
 * than the walk keeps at hand, so each is read again for each FDE), 40,000
 * FDEs are all kept (9 states, 11 KiB of the 32 MiB). */
static void test_cie_states_charged_once(void **state)
{
	static const uint8_t undefined_127[] = { DW_CFA_undefined, 127 };
	static const uint8_t udata4[] = { DW_EH_PE_udata4 };
	struct cfi_fde_ranges out;
	struct section s = { 0 };
	size_t cies[9];

	(void)state;
	for (unsigned int c = 0; c < 9; c++)
		cies[c] = cie_with(&s, "zR", udata4, 1, undefined_127, sizeof(undefined_127), 0);
	for (uint32_t i = 0; i < 40000; i++)
		fde(&s, cies[i % 9], 0x10000 + i * 0x10, 0x10, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 40000);
	cfi_fdes_free(&out);
	free(s.b);
}

/* libdw's search reads on past an entry dwarf_next_cfi reads the length of
 * but not the rest (a CIE of version 2): so does the walk, and the FDE
 * after it is read. Two FDEs that overlap are both left out (libdw's cache
 * takes them for one). */
static void test_walk_reads_what_libdw_reads(void **state)
{
	struct cfi_fde_ranges out;
	struct section s = { 0 };
	size_t at = plain_cie(&s, 0), bad = plain_cie(&s, 0);

	(void)state;
	s.b[bad + 8] = 2; /* its version */
	fde(&s, at, 0x1000, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 1);
	cfi_fdes_free(&out);

	fde(&s, at, 0x1020, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 0);
	cfi_fdes_free(&out);
	free(s.b);
}

/* Augmentations libdw reads otherwise than the walk could: an unknown
 * letter (libdw skips it and reads on), a personality pointer encoded
 * LEB128 (libdw's encoded_value_size ends it at the first byte with bit 7
 * set): refused as unknown. The last 'R' of a string is the one libdw
 * keeps. */
static void test_augmentations_as_libdw(void **state)
{
	static const uint8_t leb_personality[] = { DW_EH_PE_uleb128, 0x80, 0x01, DW_EH_PE_udata4 };
	static const uint8_t two_r[] = { DW_EH_PE_sdata8, DW_EH_PE_udata4 };
	struct cfi_fde_ranges out;
	struct section s = { 0 };
	size_t at;

	(void)state;
	at = cie(&s, "zQ", NULL, 0, 0);
	fde(&s, at, 0x1000, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_UNKNOWN_CFI);
	cfi_fdes_free(&out);

	s.len = 0;
	at = cie(&s, "zPR", leb_personality, sizeof(leb_personality), 0);
	fde(&s, at, 0x1000, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_UNKNOWN_CFI);
	cfi_fdes_free(&out);

	s.len = 0;
	at = cie(&s, "zRR", two_r, sizeof(two_r), 0);
	fde(&s, at, 0x1000, 0x40, 0);
	assert_int_equal(walk(&s, &out, NULL), UNWIND_BUILT);
	assert_int_equal(out.nr, 1);
	assert_int_equal(out.v[0].lo, 0x1000);
	assert_int_equal(out.v[0].hi, 0x1040);
	cfi_fdes_free(&out);
	free(s.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expressions_are_budgeted),
		cmocka_unit_test(test_long_cies_are_bounded),
		cmocka_unit_test(test_cie_states_are_budgeted),
		cmocka_unit_test(test_cie_states_charged_once),
		cmocka_unit_test(test_walk_reads_what_libdw_reads),
		cmocka_unit_test(test_augmentations_as_libdw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
