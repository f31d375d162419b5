/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.h: symbol tables for addresses: the kernel's from /proc/kallsyms and
 * a binary's from its ELF .symtab and .dynsym (libelf), with lookup by address. */
#ifndef RINGTRACE_SYMBOLS_H
#define RINGTRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbol {
	uint64_t start;
	uint64_t end; /* exclusive */
	const char *name;
};

/* A loadable segment: file offsets [offset, offset+size) live at vaddr. */
struct elf_segment {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t size;
};

struct symtab {
	struct symbol *syms; /* sorted by start, non-overlapping */
	size_t nr;
	char *names;         /* one arena holding every name */
	size_t names_len;
	struct elf_segment *segments;
	size_t nr_segments;
};

/* Loads the function symbols of /proc/kallsyms (or another file in its format).
 * Returns 0, or -1 with err set. */
int symtab_load_kallsyms(struct symtab *t, const char *path, char *err, size_t errlen);
/* Loads the symbols and PT_LOAD segments of an ELF file: those perf 6.1
 * loads (functions, objects, labels in text; its .symtab, or a debug file's,
 * then its .dynsym; NAME@plt for its PLT entries), with perf's choice among
 * symbols at one address, so that addresses resolve to the names perf shows. */
int symtab_load_elf(struct symtab *t, const char *path, char *err, size_t errlen);
/* Like symtab_load_elf, but only from the file with that build-id: path if
 * it still is that file, else a copy named by build-id (xx/yyyy) in one of
 * the NULL-terminated dirs (a recording's .build-id), else its debug file
 * under /usr/lib/debug/.build-id. path and the debug files are looked for
 * under root ("DIR": DIR/usr/bin/x for /usr/bin/x, as perf's --symfs; NULL
 * for /), the dirs are not. -1 with err set if none is. */
int symtab_load_elf_build_id(struct symtab *t, const char *root, const char *path,
			     const uint8_t *build_id, size_t len, const char *const *dirs,
			     char *err, size_t errlen);
/* Loads the symbols of this process's own vDSO, which is every process's on
 * this kernel (perf reads its own too). 0, or -1. */
int symtab_load_vdso(struct symtab *t);
/* The symbol containing addr, or NULL. */
const struct symbol *symtab_find(const struct symtab *t, uint64_t addr);
/* Converts a file offset into the ELF virtual address symbols use; returns 0
 * and sets *vaddr, or -1 if no PT_LOAD segment holds that offset. */
int symtab_offset_to_vaddr(const struct symtab *t, uint64_t offset, uint64_t *vaddr);
void symtab_free(struct symtab *t);

#endif
