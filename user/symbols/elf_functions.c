/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_functions.c: whether a file is ELF, and the function names it defines in
 * .symtab and .dynsym, aliases and all, as libbpf looks a uprobe's function up. */
#include "symbols/elf_functions.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/byte_buffer.h"
#include "lib/log.h"
#include "symbols/elf_open.h"

int elf_is_elf_file(const char *path, char *err, size_t errlen)
{
	int fd;
	Elf *elf = elf_open_path(path, &fd, err, errlen);

	if (!elf)
		return errno == ENOEXEC ? 0 : -errno;
	elf_end(elf);
	close(fd);
	return 1;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends each defined function's name (NUL-terminated) of symbol table scn. */
static int add_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct byte_buffer *b,
		     size_t *nr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (!byte_buffer_append(b, name, strlen(name) + 1))
			return -ENOMEM;
		(*nr)++;
	}
	return 0;
}

int elf_function_names(const char *path, char ***names, size_t *nr, char *err, size_t errlen)
{
	struct byte_buffer b = { 0 };
	Elf_Scn *scn = NULL;
	size_t count = 0, kept = 0;
	char **out, *text;
	int fd, ret = -ENOMEM;
	Elf *elf;

	*names = NULL;
	*nr = 0;
	elf = elf_open_path(path, &fd, err, errlen);
	if (!elf)
		return -errno;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    add_table(elf, scn, &sh, &b, &count))
			goto oom;
	}
	/* one block: the pointers, then the strings they point to */
	out = malloc((count + 1) * sizeof(*out) + b.len + 1);
	if (!out)
		goto oom;
	text = (char *)(out + count + 1);
	if (b.len)
		memcpy(text, b.data, b.len);
	for (size_t i = 0, at = 0; i < count; i++) {
		out[i] = text + at;
		at += strlen(text + at) + 1;
	}
	qsort(out, count, sizeof(*out), compare_names);
	for (size_t i = 0; i < count; i++)
		if (!kept || strcmp(out[i], out[kept - 1]))
			out[kept++] = out[i];
	out[kept] = NULL;
	*names = out;
	*nr = kept;
	ret = 0;
	goto out;
oom:
	rt_format(err, errlen, "out of memory reading the functions of %s", path);
out:
	byte_buffer_free(&b);
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

bool elf_names_function(const char *sym, const char *func)
{
	size_t n = strlen(func);

	return !strncmp(sym, func, n) && (sym[n] == '\0' || sym[n] == '@');
}

#define MAX_DEFINITIONS 8

/* The addresses (distinct, at most MAX_DEFINITIONS: more count as many) of
 * func's definitions in the symbol table scn, each with its section. */
static void find_definitions(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *func,
			     GElf_Addr *addr, size_t *shndx, size_t *nr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < count; i++) {
		const char *name;
		GElf_Sym sym;
		size_t j;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !elf_names_function(name, func))
			continue;
		for (j = 0; j < *nr && addr[j] != sym.st_value; j++)
			;
		if (j == *nr && *nr < MAX_DEFINITIONS) {
			addr[*nr] = sym.st_value;
			shndx[(*nr)++] = sym.st_shndx;
		}
	}
}

int elf_function_offset(const char *path, const char *func, uint64_t *offset, char *err,
			size_t errlen)
{
	GElf_Addr addr[MAX_DEFINITIONS];
	size_t shndx[MAX_DEFINITIONS], nr = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int fd, ret = -EINVAL;
	Elf *elf = elf_open_path(path, &fd, err, errlen);

	if (!elf)
		return -errno;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			find_definitions(elf, scn, &sh, func, addr, shndx, &nr);
	if (!nr) {
		ret = 1;
	} else if (nr > 1) {
		size_t at;

		rt_format(err, errlen, "%s in %s is defined at %s%zu addresses:", func, path,
			  nr == MAX_DEFINITIONS ? "at least " : "", nr);
		for (size_t i = 0; i < nr; i++) {
			at = strlen(err);
			rt_format(err + at, errlen - at, " 0x%llx", (unsigned long long)addr[i]);
		}
		at = strlen(err);
		rt_format(err + at, errlen - at, "; probe one by its own name");
	} else if (!(scn = elf_getscn(elf, shndx[0])) || !gelf_getshdr(scn, &sh) ||
		   addr[0] < sh.sh_addr || addr[0] - sh.sh_addr >= sh.sh_size) {
		rt_format(err, errlen, "%s in %s lies outside its section", func, path);
	} else {
		*offset = addr[0] - sh.sh_addr + sh.sh_offset;
		ret = 0;
	}
	elf_end(elf);
	close(fd);
	return ret;
}
