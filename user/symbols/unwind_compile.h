/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_compile.h: an ELF file's .eh_frame (and .debug_frame) compiled with
 * libdw's CFI API into compact rows (how to find the CFA, the return address
 * and the saved rbp and rbx). */
#ifndef RINGTRACE_UNWIND_COMPILE_H
#define RINGTRACE_UNWIND_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a row finds the CFA (the caller's sp) of the x86-64 code it covers. */
enum unwind_cfa {
	UNWIND_CFA_NONE,       /* no CFI here: frame pointers */
	UNWIND_CFA_RSP,        /* rsp + cfa_offset */
	UNWIND_CFA_RBP,        /* rbp + cfa_offset */
	UNWIND_CFA_PLT10,      /* a PLT entry: rsp + 8, + 8 more when (rip & 15) >= 10 */
	UNWIND_CFA_PLT11,      /* the same with 11 (lazy-binding PLT0 push pattern) */
	UNWIND_CFA_EXPRESSION, /* another DWARF expression, or a return address not
				  at CFA - 8: frame pointers, and counted */
	UNWIND_CFA_SIGNAL,     /* a signal trampoline: the registers are in the
				  ucontext on the stack */
	UNWIND_CFA_OUTERMOST,  /* the return address is undefined: the stack ends */
	UNWIND_CFA_RBX,        /* rbx + cfa_offset */
	UNWIND_CFA_REG,        /* DWARF register cfa_reg + cfa_offset (rdi, rdx, ...) */
	UNWIND_CFA_RSP_RA_REG, /* rsp + cfa_offset, the return address in register
				  cfa_reg (__vfork's, popped into rdi) */
	UNWIND_CFA_STACK_SWITCH, /* the code runs its callee on another stack (Go's
				    runtime.systemstack): frame pointers, which
				    the switch leaves alone, find its caller */
};

/* Where the caller's rbp (or rbx) is. */
enum unwind_rbp {
	UNWIND_RBP_SAME,  /* unchanged (same value, or no rule) */
	UNWIND_RBP_SAVED, /* at CFA + rbp_offset */
	UNWIND_RBP_UNDEFINED,
};

/* A row covers [pc, the next row's pc) in the file's virtual addresses. */
struct unwind_row {
	uint64_t pc;
	int32_t cfa_offset;
	int16_t rbp_offset;
	int16_t rbx_offset;
	uint8_t cfa;     /* enum unwind_cfa */
	uint8_t rbp;     /* enum unwind_rbp */
	uint8_t rbx;     /* enum unwind_rbp, for rbx */
	uint8_t cfa_reg; /* UNWIND_CFA_REG's DWARF register number */
	bool debug_frame; /* from .debug_frame (code without .eh_frame) */
};

/* What compiling one file may spend. A file over it gets no table (its
 * mappings are unwound by frame pointers) and the reason is counted. */
struct unwind_budget {
	uint64_t max_rows;      /* rows of the table */
	uint64_t max_cfi_bytes; /* .eh_frame and .debug_frame bytes, together */
	double max_seconds;     /* time spent compiling (CPU of the thread) */
	/* set by another thread to stop the compile at once (NULL: never) */
	const _Atomic bool *cancel;
};

/* Why a file has no table. */
enum unwind_refusal {
	UNWIND_BUILT,          /* it has one */
	UNWIND_NOT_ELF,        /* not an x86-64 ELF file (or not one libelf reads) */
	UNWIND_NO_CFI,         /* neither .eh_frame nor .debug_frame */
	UNWIND_LYING_HEADER,   /* a section or segment claims bytes past the file's end,
				  or executable addresses that wrap; an
				  .eh_frame_hdr names an FDE .eh_frame's walk
				  did not read, or puts .eh_frame elsewhere
				  than its segment does */
	UNWIND_OVER_ROWS,      /* more rows (or FDEs) than budget.max_rows */
	UNWIND_OVER_BYTES,     /* more CFI than budget.max_cfi_bytes (for a
				  .debug_frame alone, with the compressed debug
				  sections libdw inflates to read it) */
	UNWIND_OVER_TIME,      /* compiling took longer than budget.max_seconds */
	UNWIND_CANCELLED,      /* budget.cancel was set */
	UNWIND_NO_MEMORY,
	UNWIND_PAST_4GIB,      /* code past the rows' 32-bit addresses */
	UNWIND_FILE_CHANGED,   /* the file shrank while it was read (SIGBUS) */
	UNWIND_UNKNOWN_CFI,    /* CFI encoded as no toolchain writes it, that libdw
				  may read otherwise than the compile: an
				  augmentation, a pointer or table encoding */
	UNWIND_NR_REFUSALS
};

/* A refusal's name for the totals ("over the row budget", ...). */
const char *unwind_refusal_name(enum unwind_refusal why);

/* The errno a refusal is returned as (0 for UNWIND_BUILT). */
int unwind_refusal_errno(enum unwind_refusal why);

/* The budget a recording gives each file unless told otherwise. */
#define UNWIND_DEFAULT_MAX_ROWS (4u << 20)
#define UNWIND_DEFAULT_MAX_CFI_BYTES (64ull << 20)
#if defined(__SANITIZE_ADDRESS__)
/* the sanitized build (make test's) compiles several times slower: python3's
 * table took over 2 s of CPU there in CI and test_unwind_eviction found none */
#define UNWIND_DEFAULT_MAX_SECONDS 20.0
#else
#define UNWIND_DEFAULT_MAX_SECONDS 2.0
#endif

struct unwind_table {
	struct unwind_row *rows; /* sorted by pc; the last one is UNWIND_CFA_NONE */
	size_t nr, cap;
	size_t expression_rows; /* rows of UNWIND_CFA_EXPRESSION */
	size_t deferred_fdes;   /* left to a second stage (unwind_stage) */
	/* the executable segment's p_vaddr - p_offset: a mapping of it at
	 * start from file offset pgoff puts vaddr v at v + start - pgoff - delta */
	int64_t exec_vaddr_delta;
};

/* A compile in two stages, for a file whose table is wanted at once: libdw
 * runs an FDE's instructions from its start for each of its rows, so a long
 * FDE costs the square of its length (cc1 has one of 6,677 rows, two thirds
 * of its CFI work). The first stage leaves the FDEs of more than
 * defer_over_cfi_bytes to the second (their code unwound by frame pointers
 * meanwhile: one UNWIND_CFA_NONE row each, counted in deferred_fdes); the
 * second, given the first's table, compiles those alone and keeps the
 * first's rows for the rest: the same table as a compile in one go. */
struct unwind_stage {
	uint32_t defer_over_cfi_bytes;
	const struct unwind_table *first; /* NULL: this is the first stage */
	/* parts 2 or more: the part'th of that many shares of the FDEs alone,
	 * each compiled on a thread of its own and put together by
	 * unwind_table_join (0 or 1: the whole) */
	unsigned int part, parts;
};

/* The FDE size the recording's first stage defers (cc1: a third of the
 * work left to the second stage, one FDE in 32,000). */
#define UNWIND_STAGE_DEFER_OVER_CFI_BYTES 2048u

/* Compiles the .eh_frame of the ELF file fd, and its .debug_frame where the
 * .eh_frame says nothing (read through a mapping, for every executable
 * section), within budget (NULL: the defaults, never cancelled): FDE by FDE,
 * each gap between them one UNWIND_CFA_NONE row, so the work follows the
 * CFI, never the size of the code. 0, or -errno with *why and err (one line)
 * set and t empty: -ENOEXEC not ELF, -ENOENT no CFI, -E2BIG over the rows,
 * -EFBIG over the bytes, -ETIME over the time, -ECANCELED, -ENOMEM, -ERANGE
 * past 4 GiB, -ESTALE the file shrank, -EINVAL a lying header, -EPROTO CFI
 * encoded as no toolchain writes it. */
int unwind_table_build(int fd, const struct unwind_budget *budget, struct unwind_table *t,
		       enum unwind_refusal *why, char *err, size_t errlen);
/* The same, as the stage says (NULL: in one go). */
int unwind_table_build_staged(int fd, const struct unwind_budget *budget,
			      const struct unwind_stage *stage, struct unwind_table *t,
			      enum unwind_refusal *why, char *err, size_t errlen);
/* How row r goes after the row last before it in a table: covered by last
 * (the same rule), in place of last (at its address), or after it. */
enum unwind_seam { UNWIND_SEAM_FOLLOWS, UNWIND_SEAM_COVERED, UNWIND_SEAM_REPLACES };
enum unwind_seam unwind_row_seam(const struct unwind_row *last, const struct unwind_row *r);
/* The n parts of one compile, in order, as one table into out (the parts
 * stay the caller's): the table the compile gives in one part. 0 or -ENOMEM. */
int unwind_table_join(struct unwind_table *parts, unsigned int n, struct unwind_table *out);
/* The row covering pc, or NULL outside every row. */
const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc);
void unwind_table_free(struct unwind_table *t);

#endif
