/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_functions.h: whether a file is ELF, and the function names it defines in
 * .symtab and .dynsym, aliases and all, as libbpf looks a uprobe's function up. */
#ifndef RINGTRACE_ELF_FUNCTIONS_H
#define RINGTRACE_ELF_FUNCTIONS_H

#include <stddef.h>

/* 1 if path is an ELF file, 0 if not, -1 if it cannot be read; err says
 * why when not 1. */
int elf_is_elf_file(const char *path, char *err, size_t errlen);

/* The defined STT_FUNC names of path, sorted, each once: *names (malloc'd,
 * the strings in the same block), *nr of them. 0, or -1 with err set. */
int elf_function_names(const char *path, char ***names, size_t *nr, char *err, size_t errlen);

#endif
