/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_functions.h: whether a file is ELF, the function names it defines in
 * .symtab and .dynsym, aliases and all, as libbpf looks a uprobe's function up,
 * and where in the file a function's code is. */
#ifndef RINGTRACE_ELF_FUNCTIONS_H
#define RINGTRACE_ELF_FUNCTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1 if path is an ELF file, 0 if not, -errno if it cannot be read; err says
 * why when not 1. */
int elf_is_elf_file(const char *path, char *err, size_t errlen);

/* The defined STT_FUNC names of path, sorted, each once: *names (malloc'd,
 * the strings in the same block), *nr of them. 0, or -errno with err set. */
int elf_function_names(const char *path, char ***names, size_t *nr, char *err, size_t errlen);

/* Whether symbol name sym names function func: func itself, or one of its
 * versions ("func@VERSION", "func@@VERSION"), as .symtab spells them. */
bool elf_names_function(const char *sym, const char *func);

/* The file offset of function func of path (any version of it: "func" and
 * "func@VERSION" name it) as a uprobe is placed: 0 with *offset set when its
 * definitions are all at one address (glibc's clock_gettime@GLIBC_2.2.5 and
 * @@GLIBC_2.17, which libbpf 1.1 calls ambiguous), 1 when path defines no
 * such STT_FUNC, -EINVAL with err set when it defines several at different
 * addresses (naming them), -errno with err set when it cannot be read. */
int elf_function_offset(const char *path, const char *func, uint64_t *offset, char *err,
			size_t errlen);

#endif
