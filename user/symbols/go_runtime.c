/* SPDX-License-Identifier: GPL-2.0-only */
/* go_runtime.c: a Go executable's runtime functions that its .debug_frame
 * cannot describe (go_runtime.h), by their names in .symtab, with or
 * without the ".abi0" of the assembly ones. */
#include "symbols/go_runtime.h"

#include <string.h>

#include "symbols/unwind_compile.h"
#include "symbols/unwind_elf.h"

static const struct {
	const char *name;
	enum go_runtime_kind kind;
} go_functions[] = {
	{ "runtime.goexit", GO_STACK_ROOT },
	{ "runtime.mstart", GO_STACK_ROOT },
	{ "runtime.rt0_go", GO_STACK_ROOT }, /* the first thread's, before mstart */
	{ "runtime.systemstack", GO_STACK_SWITCH },
	{ "runtime.mcall", GO_STACK_SWITCH },
	{ "runtime.morestack", GO_STACK_SWITCH },
	{ "runtime.asmcgocall", GO_STACK_SWITCH },
	{ "runtime.asmcgocall_no_g", GO_STACK_SWITCH },
	{ "runtime.nanotime1", GO_STACK_SWITCH },
	{ "runtime.walltime", GO_STACK_SWITCH },
	{ "runtime.walltime1", GO_STACK_SWITCH },
	{ "time.now", GO_STACK_SWITCH },
	{ "runtime.sigreturn", GO_SIGNAL_RETURN },
	{ "runtime.sigreturn__sigaction", GO_SIGNAL_RETURN },
};

/* The kind of the runtime function sym names, or -1. */
static int kind_of_name(const char *sym)
{
	for (size_t i = 0; i < sizeof(go_functions) / sizeof(go_functions[0]); i++) {
		size_t len = strlen(go_functions[i].name);

		if (!strncmp(sym, go_functions[i].name, len) &&
		    (!sym[len] || !strcmp(sym + len, ".abi0")))
			return (int)go_functions[i].kind;
	}
	return -1;
}

static void add_symbols(Elf *elf, Elf_Scn *symtab, struct go_runtime *g)
{
	Elf_Data *data = elf_getdata(symtab, NULL);
	GElf_Shdr sh;
	size_t nr;

	if (!data || !gelf_getshdr(symtab, &sh) || !sh.sh_entsize)
		return;
	nr = sh.sh_size / sh.sh_entsize;
	if (nr > GO_RUNTIME_MAX_SYMBOLS) {
		g->is_go = false;
		return;
	}
	for (size_t i = 0; i < nr && g->nr < GO_RUNTIME_MAX_FUNCTIONS; i++) {
		GElf_Sym sym;
		const char *name;
		int kind;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !sym.st_size)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || (strncmp(name, "runtime.", 8) && strncmp(name, "time.", 5)) ||
		    (kind = kind_of_name(name)) < 0)
			continue;
		g->v[g->nr++] = (struct go_runtime_function){ sym.st_value,
							      sym.st_value + sym.st_size,
							      (enum go_runtime_kind)kind };
	}
}

void go_runtime_of_elf(Elf *elf, struct go_runtime *g)
{
	Elf_Scn *symtab;

	memset(g, 0, sizeof(*g));
	g->is_go = unwind_elf_section(elf, ".note.go.buildid") ||
		   unwind_elf_section(elf, ".gopclntab");
	if (!g->is_go || !(symtab = unwind_elf_section(elf, ".symtab")))
		return;
	add_symbols(elf, symtab, g);
}

const struct go_runtime_function *go_runtime_function_at(const struct go_runtime *g, uint64_t pc)
{
	for (size_t i = 0; i < g->nr; i++)
		if (pc >= g->v[i].start && pc < g->v[i].end)
			return &g->v[i];
	return NULL;
}

/* A row of Go's .debug_frame completed with what it leaves out: the rules
 * of the runtime functions of go_runtime.h by their kind; and the caller's
 * rbp, which every Go frame of more than its return address and a word
 * (all the compiler's and the assembler's with locals: a PUSHQ in assembly
 * makes one word) saves just below the return address. */
void go_runtime_complete_row(const struct go_runtime *go, struct unwind_row *r)
{
	const struct go_runtime_function *f = go_runtime_function_at(go, r->pc);

	if (f) {
		r->cfa = f->kind == GO_STACK_ROOT     ? UNWIND_CFA_OUTERMOST
			 : f->kind == GO_STACK_SWITCH ? UNWIND_CFA_STACK_SWITCH
						      : UNWIND_CFA_SIGNAL;
		return;
	}
	if (r->cfa == UNWIND_CFA_RSP && r->cfa_offset >= 24 && r->rbp == UNWIND_RBP_SAME) {
		r->rbp = UNWIND_RBP_SAVED;
		r->rbp_offset = -16;
	}
}
