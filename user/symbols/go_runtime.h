/* SPDX-License-Identifier: GPL-2.0-only */
/* go_runtime.h: the functions of a Go executable's runtime whose frames its
 * .debug_frame cannot describe, found by name in its .symtab: where the
 * stacks of goroutines and threads begin, where the runtime switches stacks,
 * and its signal return; and the rows of its code completed with them. */
#ifndef RINGTRACE_GO_RUNTIME_H
#define RINGTRACE_GO_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

enum go_runtime_kind {
	GO_STACK_ROOT,    /* the first frame of a stack: runtime.goexit (a
			     goroutine's), runtime.mstart (a thread's g0) */
	GO_STACK_SWITCH,  /* runs its callee on another stack (systemstack, mcall,
			     morestack, asmcgocall, the vdso calls): its caller is
			     found by frame pointers, which the switch leaves alone */
	GO_SIGNAL_RETURN, /* runtime.sigreturn: a signal trampoline's return address */
};

#define GO_RUNTIME_MAX_FUNCTIONS 32
/* .symtab entries read at most looking for them (a Go executable of 100 MB
 * has under a million); past it the file is treated as not Go's */
#define GO_RUNTIME_MAX_SYMBOLS (4u << 20)

struct go_runtime_function {
	uint64_t start, end;
	enum go_runtime_kind kind;
};

struct go_runtime {
	bool is_go; /* a Go executable (.note.go.buildid or .gopclntab) */
	size_t nr;
	struct go_runtime_function v[GO_RUNTIME_MAX_FUNCTIONS];
};

/* Whether elf is a Go executable, and if so where those functions are. */
void go_runtime_of_elf(Elf *elf, struct go_runtime *g);

struct unwind_row;

/* The function of g holding pc, or NULL. */
const struct go_runtime_function *go_runtime_function_at(const struct go_runtime *g, uint64_t pc);

/* Row r of g's .debug_frame completed with what Go's CFI leaves out (the
 * rule of a runtime function above, the caller's rbp). */
void go_runtime_complete_row(const struct go_runtime *g, struct unwind_row *r);

#endif
