/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_functions.c: whether a file is ELF, and the function names it defines in
 * .symtab and .dynsym, aliases and all, as libbpf looks a uprobe's function up. */
#include "symbols/elf_functions.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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
		return errno == ENOEXEC ? 0 : -1;
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
			return -1;
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
	int fd, ret = -1;
	Elf *elf;

	*names = NULL;
	*nr = 0;
	elf = elf_open_path(path, &fd, err, errlen);
	if (!elf)
		return -1;
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
