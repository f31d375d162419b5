/* SPDX-License-Identifier: GPL-2.0-only */
/* symbols.h: symbol tables for addresses, made as perf 6.1 makes them: the
 * kernel's from /proc/kallsyms, a binary's from its ELF files, lookup by address. */
#ifndef RINGTRACE_SYMBOLS_H
#define RINGTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"
#include "symbols/symbol_tree.h"

struct symbol {
	uint64_t start;
	uint64_t end;     /* exclusive; end == start: the symbol holds start alone */
	const char *name;
	uint8_t binding;  /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t type;     /* STT_FUNC, STT_GNU_IFUNC, STT_OBJECT, STT_NOTYPE (a label) */
	bool mangled;     /* name is as the file spells it: symtab_name demangles it */
};

/* A loadable segment: file offsets [offset, offset+size) live at vaddr. */
struct elf_segment {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t size;
};

struct symtab {
	struct symbol *syms; /* sorted by start; they may overlap, as perf's do */
	size_t nr;
	uint32_t *tree;      /* 2 per symbol, its left and right child in perf's tree
			      * (TREE_NONE: none), or NULL: found by binary search */
	uint32_t root;
	char *names;         /* one arena holding every name */
	size_t names_len;
	struct elf_segment *segments;
	size_t nr_segments;
	/* kallsyms: where perf's map of the kernel ends (the end of its last
	 * symbol not a module's; UINT64_MAX with a kcore beside, whose maps
	 * cover the rest); else 0 */
	uint64_t kernel_end;
	/* kallsyms: the addresses whose symbols stay as they are while the
	 * kernel runs and its modules (/proc/modules) stay: all, but with a
	 * kcore beside (every module's symbols kept, BPF programs' and
	 * trampolines' too, which come and go) only the kernel's own, from its
	 * first function to the start of its last symbol; else 0, 0 */
	uint64_t steady_start, steady_end;
	/* a view of a table symtab_cache.c keeps (given back by symtab_free),
	 * or NULL: the table is this one's own */
	struct symtab_cache_entry *cached;
	/* kallsyms: a table kallsyms_disk.c kept on disk, looked up there (syms
	 * and names NULL), or NULL */
	struct kallsyms_disk_table *on_disk;
	/* the names of mangled symbols demangled as they are asked for (a
	 * table's C++ names demangled as read were a third of a small report),
	 * or NULL: none is mangled */
	struct demangled_names *demangled;
};

/* Loads the symbols and PT_LOAD segments of an ELF file (see elf_symbols.c);
 * 0, or -errno with err set (-ENOEXEC: not an ELF file). */
int symtab_load_elf(struct symtab *t, const char *path, char *err, size_t errlen);
/* Like symtab_load_elf, but only from the file with that build-id: path if
 * it still is that file, else a copy named by build-id (xx/yyyy) in one of
 * the NULL-terminated dirs (a recording's .build-id), else its debug file
 * under /usr/lib/debug/.build-id. path and the debug files are looked for
 * under root ("DIR": DIR/usr/bin/x for /usr/bin/x, as perf's --symfs; NULL
 * for /), the dirs are not. -errno with err set if none is (-ESTALE: not the
 * build-id recorded). */
int symtab_load_elf_build_id(struct symtab *t, const char *root, const char *path,
			     const uint8_t *build_id, size_t len, const char *const *dirs,
			     char *err, size_t errlen);
/* Loads the symbols of an ELF image in memory (the vdso's), len bytes; with
 * want_len, only if its build-id is want_id. 0, or -errno with err set
 * (-ENOEXEC: not ELF; -ESTALE: another build-id). */
int symtab_load_elf_image(struct symtab *t, const void *image, size_t len,
			  const uint8_t *want_id, size_t want_len, char *err, size_t errlen);
/* The symbol holding addr, or NULL. Symbols may overlap (perf does not trim
 * them: the _init its end fixup stretches across the PLT, the PLT entries
 * added after): the one perf's tree search meets first, as it meets it. */
const struct symbol *symtab_find(const struct symtab *t, uint64_t addr);
/* s's name as perf shows it: demangled (once, then kept in t) if s is
 * mangled, and its demangler takes it. Any thread. */
const char *symtab_name(const struct symtab *t, const struct symbol *s);
/* The bytes t's names demangled so far take. Any thread. */
size_t symtab_demangled_bytes(const struct symtab *t);
/* Converts a file offset into the ELF virtual address symbols use; returns 0
 * and sets *vaddr, or -ENOENT if no PT_LOAD segment holds that offset. */
int symtab_offset_to_vaddr(const struct symtab *t, uint64_t offset, uint64_t *vaddr);
/* The address perf looks a file offset up at, as a virtual address: the
 * offset moved as symtab_offset_to_vaddr moves it, or, past every segment's
 * bytes (the rest of a mapping's last page), as the last segment before it
 * moves its own (perf looks symbols up by file offset). -ENOENT if no segment
 * starts at or before it. */
int symtab_offset_to_lookup_addr(const struct symtab *t, uint64_t offset, uint64_t *vaddr);
void symtab_free(struct symtab *t);

/*
 * Building a table as perf 6.1 does (util/symbol.c): symbols are added in the
 * order their file lists them; symtab_builder_fixup() then sorts them by
 * address (keeping that order among equals), gives each zero-sized one the
 * room up to the next (symbols__fixup_end), and keeps one of those that share
 * an address (symbols__fixup_duplicate, by symbol_choose_best()). perf runs
 * that once per symbol section, and adds PLT entries after the last one.
 */
struct builder_symbol; /* a symbol and its place in the file */

struct symtab_builder {
	struct builder_symbol *syms;
	size_t nr, cap;
	uint32_t added;  /* symbols added so far: the order among equals */
	bool kallsyms;   /* end fixups as for /proc/kallsyms, no tree */
	bool any_mangled;
	struct byte_buffer names;
	/* perf's tree, nodes numbered by the order added, is built at the end,
	 * and only for a table whose symbols overlap (else a lookup down it
	 * finds what a binary search finds): from each symbol's start, by the
	 * order added (uint64_t), and perf's erases of duplicates in turn
	 * (struct tree_erase), replayed in perf's order */
	struct byte_buffer keys, erases;
	struct symbol_tree tree;
};

/* An empty builder; kallsyms: the table is /proc/kallsyms's. */
void symtab_builder_init(struct symtab_builder *b, bool kallsyms);
/* Adds a symbol (size 0: none given); in kallsyms, a module's symbol is
 * named "NAME\t[MODULE]" until its fixups are done. -ENOMEM if memory ran out
 * (-E2BIG past 2^32 - 1 symbols). */
int symtab_builder_add(struct symtab_builder *b, uint64_t start, uint64_t size, uint8_t binding,
		       uint8_t type, const char *name);
/* Adds a symbol whose name may be mangled (demangle.h): demangled when
 * duplicates are chosen among and when looked up (symtab_name). */
int symtab_builder_add_demangled(struct symtab_builder *b, uint64_t start, uint64_t size,
				 uint8_t binding, uint8_t type, const char *name);
/* Ends, fixup and duplicates, of everything added so far; -ENOMEM if memory
 * ran out. */
int symtab_builder_fixup(struct symtab_builder *b);
/* Keeps the symbols added for which keep(name, tab, symbol, ctx) is true, in
 * their order; name is the builder's, which keep may cut short; tab: in
 * kallsyms, whether name holds a tab (a module's "\t[MODULE]"), which keep
 * need not read name to know. */
void symtab_builder_keep(struct symtab_builder *b,
			 bool (*keep)(char *name, bool tab, const struct symbol *s, void *ctx),
			 void *ctx);
/* Sorts what was added since (without fixups) and hands the table to t (all
 * of t: no segments yet); the builder is left empty. -ENOMEM if memory ran out (t
 * is then empty). */
int symtab_builder_finish(struct symtab_builder *b, struct symtab *t);
void symtab_builder_free(struct symtab_builder *b);

/* perf's choose_best_symbol() for two symbols at one address: the sized one,
 * then the one not weak, then the global one, then the one with fewer
 * leading underscores, then the longer name; then a (but a "SyS" or
 * "compat_SyS" alias loses). Returns 0 for a, 1 for b. */
int symbol_choose_best(const struct symbol *a, const struct symbol *b);

#endif
