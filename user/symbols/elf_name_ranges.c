/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_name_ranges.c: the byte ranges of an ELF file that its names need,
 * found from its section headers. */
#include "symbols/elf_name_ranges.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "symbols/elf_open.h"

/* Whether a section of this type and name is one report reads to name
 * addresses (perf's dso__load_sym: symbol tables, their strings, the
 * build-id note, the PLT and its relocations, versions) or to unwind a
 * stack copy (CFI), or to find a debug file. */
static bool wanted(const GElf_Shdr *s, const char *name)
{
	switch (s->sh_type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
	case SHT_STRTAB:
	case SHT_NOTE:
	case SHT_REL:
	case SHT_RELA:
	case SHT_DYNAMIC:
	case SHT_GNU_versym:
	case SHT_GNU_verdef:
	case SHT_GNU_verneed:
		return true;
	case SHT_NOBITS:
		return false;
	default:
		return name && (!strncmp(name, ".plt", 4) || !strcmp(name, ".eh_frame") ||
				!strcmp(name, ".eh_frame_hdr") || !strcmp(name, ".gnu_debuglink") ||
				!strcmp(name, ".gnu_debugdata") || !strcmp(name, ".opd"));
	}
}

/* Adds [from, from + len) cut to size, if there is room. */
static void add(struct file_range *out, size_t *n, size_t max, uint64_t from, uint64_t len,
		uint64_t size)
{
	if (from >= size || !len || *n >= max)
		return;
	out[(*n)++] = (struct file_range){ from, len > size - from ? size : from + len };
}

static int by_start(const void *a, const void *b)
{
	const struct file_range *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

/* Sorts the n ranges and merges those that overlap or touch: the count left. */
static size_t merge(struct file_range *r, size_t n)
{
	size_t out = 0;

	qsort(r, n, sizeof(*r), by_start);
	for (size_t i = 0; i < n; i++) {
		if (out && r[i].from <= r[out - 1].to) {
			if (r[i].to > r[out - 1].to)
				r[out - 1].to = r[i].to;
			continue;
		}
		r[out++] = r[i];
	}
	return out;
}

int elf_name_ranges(int fd, uint64_t size, struct file_range *out, size_t max)
{
	size_t n = 0, shnum, shstrndx, phnum;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	Elf *elf;

	elf = elf_open_fd_pread(fd);
	if (!elf || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx) ||
	    elf_getphdrnum(elf, &phnum)) {
		elf_end(elf);
		return -ENOEXEC;
	}
	/* the ELF header, the program headers, the section headers */
	add(out, &n, max, 0, eh.e_ehsize, size);
	add(out, &n, max, eh.e_phoff, (uint64_t)phnum * eh.e_phentsize, size);
	add(out, &n, max, eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, size);
	while ((scn = elf_nextscn(elf, scn)) && n < max) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (wanted(&sh, name))
			add(out, &n, max, sh.sh_offset, sh.sh_size, size);
	}
	elf_end(elf);
	return (int)merge(out, n);
}

uint64_t file_ranges_bytes(const struct file_range *r, size_t n)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < n; i++)
		bytes += r[i].to - r[i].from;
	return bytes;
}
