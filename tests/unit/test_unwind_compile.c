/* SPDX-License-Identifier: GPL-2.0-only */
/* test_unwind_compile.c: the rows compiled from .eh_frame and .debug_frame agree
 * with every row binutils' readelf --debug-dump=frames-interp prints, for
 * unwindgen (with either section), libc and ld.so, and so do the FDEs' ranges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/cfi_fdes.h"
#include "symbols/unwind_elf.h"
#include "symbols/unwind_compile.h"
#include "test_util.h"

struct agreement {
	size_t rows, agreed, fdes;
	size_t debug_frame_rows; /* of rows, those of .debug_frame */
	size_t rbx_cfa_rows;     /* of rows, those whose CFA is rbx + offset */
	size_t rbx_saved_rows;   /* of rows, those where rbx is saved in the frame */
};

/* readelf's names of the DWARF registers of x86-64, by number. */

/* The defaults but for the time: these tests check tables, not budgets, and
 * cc1's compile took over the default 2 s of CPU under the sanitizers on a
 * busy machine (CI, 2026-11-27). */
static const struct unwind_budget untimed = {
	.max_rows = UNWIND_DEFAULT_MAX_ROWS,
	.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
	.max_seconds = 600.0,
};
static const char *const reg_names[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi",
					 "rbp", "rsp", "r8",  "r9",  "r10", "r11",
					 "r12", "r13", "r14", "r15" };

/* The column of readelf's header line named name ("CFA", "rbp", "ra"), or -1. */
static int column_of(char *const *cols, int ncols, const char *name)
{
	for (int i = 0; i < ncols; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static int split(char *line, char **cols, int max)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n"))
		cols[n++] = tok;
	return n;
}

/* Whether our CFA rule is readelf's ("rsp+8", "rbx+56", "rdi+0"). */
static bool cfa_agrees(const struct unwind_row *r, const char *cfa)
{
	const char *name;
	char want[32];

	switch (r->cfa) {
	case UNWIND_CFA_RSP:
		name = "rsp";
		break;
	case UNWIND_CFA_RBP:
		name = "rbp";
		break;
	case UNWIND_CFA_RBX:
		name = "rbx";
		break;
	case UNWIND_CFA_REG:
		if (r->cfa_reg >= sizeof(reg_names) / sizeof(reg_names[0]) || r->cfa_reg == 3 ||
		    r->cfa_reg == 6 || r->cfa_reg == 7)
			return false;
		name = reg_names[r->cfa_reg];
		break;
	default:
		return false;
	}
	snprintf(want, sizeof(want), "%s%+d", name, r->cfa_offset);
	return !strcmp(want, cfa);
}

/* Whether our rule for a callee-saved register (rbp, rbx) is readelf's
 * column col (NULL: the FDE never mentions it). */
static bool saved_agrees(uint8_t how, int16_t offset, const char *col)
{
	char want[32];

	if (!col || !strcmp(col, "s"))
		return how == UNWIND_RBP_SAME;
	/* readelf's "u" is no rule in the FDE: for a callee-saved register
	 * the x86-64 ABI's default, the same value (as libdw reads it) */
	if (!strcmp(col, "u"))
		return how == UNWIND_RBP_UNDEFINED || how == UNWIND_RBP_SAME;
	snprintf(want, sizeof(want), "c%+d", offset);
	return how == UNWIND_RBP_SAVED && !strcmp(want, col);
}

/* Whether our row at loc says what readelf's CFA, rbp, rbx and ra columns say. */
static bool row_agrees(const struct unwind_table *t, uint64_t loc, const char *cfa,
		       const char *rbp, const char *rbx, const char *ra)
{
	const struct unwind_row *r = unwind_table_find(t, loc);

	if (!r)
		return false;
	/* the signal trampoline's FDE (libc's __restore_rt) describes the
	 * ucontext with expressions: ours reads the ucontext */
	if (r->cfa == UNWIND_CFA_SIGNAL)
		return !strcmp(cfa, "exp");
	if (!strcmp(ra, "u"))
		return r->cfa == UNWIND_CFA_OUTERMOST;
	if (!strcmp(cfa, "exp"))
		return r->cfa == UNWIND_CFA_PLT10 || r->cfa == UNWIND_CFA_PLT11 ||
		       r->cfa == UNWIND_CFA_EXPRESSION;
	/* the return address in a register ("r5", rdi: __vfork's), the CFA by rsp */
	if (ra[0] == 'r' && r->cfa == UNWIND_CFA_RSP_RA_REG) {
		char want[32];

		snprintf(want, sizeof(want), "rsp%+d", r->cfa_offset);
		return atoi(ra + 1) == r->cfa_reg && !strcmp(want, cfa);
	}
	if (strcmp(ra, "c-8"))
		return r->cfa == UNWIND_CFA_EXPRESSION;
	return cfa_agrees(r, cfa) && saved_agrees(r->rbp, r->rbp_offset, rbp) &&
	       saved_agrees(r->rbx, r->rbx_offset, rbx);
}

/* Every row readelf interprets in path's .eh_frame and .debug_frame, checked
 * against ours. */
static void compare_with_readelf(const char *path, const struct unwind_table *t,
				 struct agreement *a)
{
	char cmd[1024], line[4096], header[4096], *cols[64], *hcols[64];
	int ncols = 0, cfa_col = -1, rbp_col = -1, rbx_col = -1, ra_col = -1;
	bool in_fde = false, in_debug_frame = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	header[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		unsigned long long loc;
		int n;

		if (strstr(line, "Contents of the ")) {
			in_debug_frame = strstr(line, " .debug_frame ") != NULL;
			in_fde = false;
			continue;
		}
		if (strstr(line, " FDE ")) {
			a->fdes++;
			in_fde = true;
			ncols = 0;
			continue;
		}
		if (strstr(line, " CIE ")) {
			in_fde = false;
			ncols = 0;
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			snprintf(header, sizeof(header), "%s", line);
			ncols = split(header, hcols, 64);
			cfa_col = column_of(hcols, ncols, "CFA");
			rbp_col = column_of(hcols, ncols, "rbp");
			rbx_col = column_of(hcols, ncols, "rbx");
			ra_col = column_of(hcols, ncols, "ra");
			continue;
		}
		if (!in_fde || !ncols || cfa_col < 0 || ra_col < 0)
			continue;
		n = split(line, cols, 64);
		if (n != ncols || sscanf(cols[0], "%llx", &loc) != 1)
			continue;
		a->rows++;
		a->debug_frame_rows += in_debug_frame;
		a->rbx_cfa_rows += !strncmp(cols[cfa_col], "rbx+", 4);
		a->rbx_saved_rows += rbx_col >= 0 && cols[rbx_col][0] == 'c';
		if (row_agrees(t, loc, cols[cfa_col], rbp_col >= 0 ? cols[rbp_col] : NULL,
			       rbx_col >= 0 ? cols[rbx_col] : NULL, cols[ra_col]))
			a->agreed++;
		else if (a->rows - a->agreed <= 5)
			print_message("%s: at %#llx readelf says CFA %s rbp %s rbx %s ra %s\n",
				      path, loc, cols[cfa_col], rbp_col >= 0 ? cols[rbp_col] : "-",
				      rbx_col >= 0 ? cols[rbx_col] : "-", cols[ra_col]);
	}
	pclose(p);
}

/* path's rows against what readelf reads in readelf_path (path itself, or
 * the file path is a copy of). */
static void check_copy(const char *path, const char *readelf_path, struct agreement *a)
{
	struct unwind_table t;
	enum unwind_refusal why;
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	if (unwind_table_build(fd, &untimed, &t, &why, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	close(fd);
	assert_true(t.nr > 0);
	for (size_t i = 1; i < t.nr; i++)
		assert_true(t.rows[i - 1].pc < t.rows[i].pc);
	assert_int_equal(t.rows[t.nr - 1].cfa, UNWIND_CFA_NONE);
	compare_with_readelf(readelf_path, &t, a);
	unwind_table_free(&t);
	print_message("%s: %zu of %zu rows (%zu of .debug_frame, %zu with the CFA at rbx, %zu "
		      "with rbx saved) of %zu FDEs agree\n",
		      path, a->agreed, a->rows, a->debug_frame_rows, a->rbx_cfa_rows,
		      a->rbx_saved_rows, a->fdes);
}

static void check_file(const char *path, struct agreement *a)
{
	check_copy(path, path, a);
}

/* The path of the test program name in SYMGEN_DIR (skips without it). */
static void symgen_path(char *path, size_t size, const char *name)
{
	const char *dir = getenv("SYMGEN_DIR");

	if (!dir)
		tu_skip("SYMGEN_DIR is not set: run through make check");
	snprintf(path, size, "%s/%s", dir, name);
}

/* unwindgen (built -fomit-frame-pointer): every row, its PLT's expression
 * and _start's undefined return address among them. */
static void test_unwindgen_rows_match_readelf(void **state)
{
	struct agreement a = { 0 };
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	check_file(path, &a);
	assert_true(a.rows >= 10);
	assert_int_equal(a.agreed, a.rows);
}

/* unwindgen built without unwind tables (-fno-asynchronous-unwind-tables
 * -g): its own functions described only by .debug_frame, the C runtime's by
 * .eh_frame; both sections' rows, as readelf reads each. */
static void test_debug_frame_rows_match_readelf(void **state)
{
	struct agreement a = { 0 };
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen_debugframe");
	check_file(path, &a);
	assert_true(a.debug_frame_rows >= 5);
	assert_int_equal(a.agreed, a.rows);
}

/* libc: thousands of functions, hand-written assembly, a signal trampoline. */
static void test_libc_rows_match_readelf(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct agreement a = { 0 };

	(void)state;
	if (access(libc, R_OK))
		tu_skip("no %s on this machine", libc);
	check_file(libc, &a);
	assert_true(a.rows >= 1000);
	assert_int_equal(a.agreed, a.rows);
}

/* ld.so: _dl_runtime_resolve_xsavec and its kin find the CFA at rbx + 56
 * and save rbx in the frame. */
static void test_ld_so_rbx_rows_match_readelf(void **state)
{
	const char *ld_so = "/lib64/ld-linux-x86-64.so.2";
	struct agreement a = { 0 };

	(void)state;
	if (access(ld_so, R_OK))
		tu_skip("no %s on this machine", ld_so);
	check_file(ld_so, &a);
	assert_true(a.rbx_cfa_rows >= 1);
	assert_true(a.rbx_saved_rows >= 1);
	assert_int_equal(a.agreed, a.rows);
}

/* A copy of unwindgen without section headers (e_shoff, e_shnum and
 * e_shstrndx zero): its .eh_frame found through PT_GNU_EH_FRAME, its code
 * the executable segment; every row readelf reads in the original agrees. */
static void test_no_section_headers(void **state)
{
	const Elf64_Half none = 0;
	const Elf64_Off no_offset = 0;
	struct agreement a = { 0 };
	char src[512], path[1024], cmd[2100], *dir = tu_tempdir();
	int fd;

	(void)state;
	assert_non_null(dir);
	symgen_path(src, sizeof(src), "unwindgen");
	snprintf(path, sizeof(path), "%s/unwindgen_no_sections", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, path);
	assert_int_equal(system(cmd), 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &no_offset, sizeof(no_offset), offsetof(Elf64_Ehdr, e_shoff)),
			 sizeof(no_offset));
	assert_int_equal(pwrite(fd, &none, sizeof(none), offsetof(Elf64_Ehdr, e_shnum)),
			 sizeof(none));
	assert_int_equal(pwrite(fd, &none, sizeof(none), offsetof(Elf64_Ehdr, e_shstrndx)),
			 sizeof(none));
	close(fd);
	check_copy(path, src, &a);
	assert_true(a.rows >= 10);
	assert_int_equal(a.agreed, a.rows);
	tu_rmtree(dir);
	free(dir);
}

static int cmp_fde_range(const void *a, const void *b)
{
	const struct cfi_fde_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static void sort_ranges(struct cfi_fde_ranges *r)
{
	if (r->nr)
		qsort(r->v, r->nr, sizeof(r->v[0]), cmp_fde_range);
}

/* The non-empty [lo, hi) of every FDE readelf --debug-dump=frames prints
 * in path's section (".eh_frame", ".debug_frame"), sorted. */
static void readelf_fdes(const char *path, const char *section, struct cfi_fde_ranges *out)
{
	char cmd[1024], line[4096], contents[128];
	bool in_section = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames '%s'", path);
	snprintf(contents, sizeof(contents), "Contents of the %s section", section);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long lo, hi;
		const char *pc = strstr(line, " pc=");

		if (strstr(line, "Contents of the "))
			in_section = strstr(line, contents) != NULL;
		if (!in_section || !strstr(line, " FDE ") || !pc ||
		    sscanf(pc, " pc=%llx..%llx", &lo, &hi) != 2 || lo >= hi)
			continue;
		if (out->nr == out->cap) {
			out->cap = out->cap ? out->cap * 2 : 64;
			out->v = realloc(out->v, out->cap * sizeof(out->v[0]));
			assert_non_null(out->v);
		}
		out->v[out->nr++] = (struct cfi_fde_range){ .lo = lo, .hi = hi };
	}
	pclose(p);
	sort_ranges(out);
}

static enum unwind_refusal always_go_on(void *arg)
{
	(void)arg;
	return UNWIND_BUILT;
}

/* Our decoding of every FDE's range in path's section is readelf's. */
static void check_fde_ranges(const char *path, const char *section)
{
	struct cfi_fde_ranges ours = { 0 }, theirs = { 0 };
	bool eh_frame = !strcmp(section, ".eh_frame");
	struct cfi_section sec = { 0 };
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	scn = unwind_elf_section(elf, section);
	assert_non_null(scn);
	assert_non_null(gelf_getshdr(scn, &sh));
	sec.data = eh_frame ? elf_rawdata(scn, NULL) : elf_getdata(scn, NULL);
	sec.vaddr = sh.sh_addr;
	assert_int_equal(cfi_fdes_collect(elf, &sec, eh_frame, SIZE_MAX, always_go_on, NULL, &ours, NULL),
			 UNWIND_BUILT);
	elf_end(elf);
	close(fd);
	sort_ranges(&ours);
	readelf_fdes(path, section, &theirs);
	print_message("%s %s: %zu FDEs, readelf %zu\n", path, section, ours.nr, theirs.nr);
	assert_true(theirs.nr > 0);
	assert_int_equal(ours.nr, theirs.nr);
	for (size_t i = 0; i < ours.nr; i++) {
		if (ours.v[i].lo != theirs.v[i].lo || ours.v[i].hi != theirs.v[i].hi)
			fail_msg("%s: FDE %zu is %#" PRIx64 "..%#" PRIx64 ", readelf's %#" PRIx64
				 "..%#" PRIx64,
				 path, i, ours.v[i].lo, ours.v[i].hi, theirs.v[i].lo,
				 theirs.v[i].hi);
	}
	cfi_fdes_free(&ours);
	cfi_fdes_free(&theirs);
}

static void test_fde_ranges_match_readelf(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	check_fde_ranges(path, ".eh_frame");
	symgen_path(path, sizeof(path), "unwindgen_debugframe");
	check_fde_ranges(path, ".eh_frame");
	check_fde_ranges(path, ".debug_frame");
	if (access(libc, R_OK))
		tu_skip("no %s on this machine", libc);
	check_fde_ranges(libc, ".eh_frame");
}

/* Every gap between two FDEs of path's .eh_frame is one NONE row (frame
 * pointers) from the end of one to the start of the next. How many. */
static size_t check_gaps(const char *path)
{
	struct cfi_fde_ranges fdes = { 0 };
	struct unwind_table t;
	enum unwind_refusal why;
	char err[256];
	size_t gaps = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(unwind_table_build(fd, &untimed, &t, &why, err, sizeof(err)), 0);
	close(fd);
	readelf_fdes(path, ".eh_frame", &fdes);
	for (size_t i = 1; i < fdes.nr; i++) {
		const struct unwind_row *gap = unwind_table_find(&t, fdes.v[i - 1].hi);

		if (fdes.v[i - 1].hi >= fdes.v[i].lo)
			continue;
		gaps++;
		assert_non_null(gap);
		assert_int_equal(gap->cfa, UNWIND_CFA_NONE);
		assert_true(gap->pc <= fdes.v[i - 1].hi);
		/* one row over the whole gap, and the next FDE's own after it */
		assert_ptr_equal(unwind_table_find(&t, fdes.v[i].lo - 1), gap);
		assert_int_equal(unwind_table_find(&t, fdes.v[i].lo)->pc, fdes.v[i].lo);
	}
	cfi_fdes_free(&fdes);
	unwind_table_free(&t);
	return gaps;
}

/* Addresses outside any FDE fall back to frame pointers: before the first,
 * after the last, and each gap between two is a single NONE row. */
static void test_gaps_are_none(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	const struct unwind_row *r;
	struct unwind_table t;
	enum unwind_refusal why;
	char path[512], err[256];
	size_t gaps;
	int fd;

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(unwind_table_build(fd, &untimed, &t, &why, err, sizeof(err)), 0);
	close(fd);
	assert_null(unwind_table_find(&t, 0));
	r = unwind_table_find(&t, t.rows[t.nr - 1].pc + 100);
	assert_non_null(r);
	assert_int_equal(r->cfa, UNWIND_CFA_NONE);
	unwind_table_free(&t);
	gaps = check_gaps(path);
	print_message("%s: %zu gaps between FDEs, each one NONE row\n", path, gaps);
	assert_true(gaps >= 1);
	if (access(libc, R_OK))
		tu_skip("no %s on this machine", libc);
	gaps = check_gaps(libc);
	print_message("%s: %zu gaps between FDEs, each one NONE row\n", libc, gaps);
	assert_true(gaps >= 100);
}

/* A first stage compiled in n parts and joined is the one compiled whole. */
static void check_parts(int fd, const struct unwind_table *one_part, uint32_t defer_over,
			unsigned int n)
{
	struct unwind_table parts[3], joined;
	enum unwind_refusal why;
	char err[256];

	assert_true(n <= 3);
	for (unsigned int p = 0; p < n; p++) {
		struct unwind_stage stage = { .defer_over_cfi_bytes = defer_over, .part = p,
					      .parts = n };

		assert_int_equal(unwind_table_build_staged(fd, &untimed, &stage, &parts[p], &why, err,
							   sizeof(err)),
				 0);
		assert_true(parts[p].nr > 0);
		assert_true(parts[p].nr <= one_part->nr);
	}
	assert_int_equal(unwind_table_join(parts, n, &joined), 0);
	assert_int_equal(joined.nr, one_part->nr);
	assert_memory_equal(joined.rows, one_part->rows, one_part->nr * sizeof(joined.rows[0]));
	assert_int_equal(joined.deferred_fdes, one_part->deferred_fdes);
	assert_int_equal(joined.exec_vaddr_delta, one_part->exec_vaddr_delta);
	unwind_table_free(&joined);
	for (unsigned int p = 0; p < n; p++)
		unwind_table_free(&parts[p]);
}

/* The two stages give the table one compile gives, row for row, whatever
 * FDEs the first defers (each file at a threshold that defers some, and at
 * 0, which defers every FDE), and so do a first stage's parts joined. */
static void check_staged(const char *path, uint32_t defer_over)
{
	struct unwind_table whole, first, second;
	struct unwind_stage stage = { .defer_over_cfi_bytes = defer_over };
	enum unwind_refusal why;
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(unwind_table_build(fd, &untimed, &whole, &why, err, sizeof(err)), 0);
	assert_int_equal(unwind_table_build_staged(fd, &untimed, &stage, &first, &why, err, sizeof(err)), 0);
	assert_true(first.deferred_fdes > 0);
	assert_true(first.nr < whole.nr);
	check_parts(fd, &first, defer_over, 2);
	check_parts(fd, &first, defer_over, 3);
	check_parts(fd, &whole, UINT32_MAX, 2);
	stage.first = &first;
	assert_int_equal(unwind_table_build_staged(fd, &untimed, &stage, &second, &why, err, sizeof(err)), 0);
	assert_int_equal(second.deferred_fdes, 0);
	assert_int_equal(second.nr, whole.nr);
	assert_memory_equal(second.rows, whole.rows, whole.nr * sizeof(whole.rows[0]));
	assert_int_equal(second.exec_vaddr_delta, whole.exec_vaddr_delta);
	print_message("%s over %u CFI bytes: %zu FDEs deferred, %zu rows first, %zu in all\n", path,
		      defer_over, first.deferred_fdes, first.nr, whole.nr);
	unwind_table_free(&whole);
	unwind_table_free(&first);
	unwind_table_free(&second);
	close(fd);
}

#define CC1 "/usr/lib/gcc/x86_64-linux-gnu/12/cc1"

static void test_staged_compile_is_the_whole(void **state)
{
	static const char *const files[] = { "/lib/x86_64-linux-gnu/libc.so.6",
					     "/lib64/ld-linux-x86-64.so.2" };
	char path[512];

	(void)state;
	symgen_path(path, sizeof(path), "unwindgen_debugframe");
	check_staged(path, 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (access(files[i], R_OK))
			tu_skip("no %s on this machine", files[i]);
		check_staged(files[i], 0);
		check_staged(files[i], 48);
	}
	/* where it matters, when gcc is installed: cc1's long FDEs at the
	 * recording's threshold */
	if (!access(CC1, R_OK))
		check_staged(CC1, UNWIND_STAGE_DEFER_OVER_CFI_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwindgen_rows_match_readelf),
		cmocka_unit_test(test_debug_frame_rows_match_readelf),
		cmocka_unit_test(test_libc_rows_match_readelf),
		cmocka_unit_test(test_ld_so_rbx_rows_match_readelf),
		cmocka_unit_test(test_fde_ranges_match_readelf),
		cmocka_unit_test(test_no_section_headers),
		cmocka_unit_test(test_gaps_are_none),
		cmocka_unit_test(test_staged_compile_is_the_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
