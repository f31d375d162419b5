/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_open.c: libelf's handle on an ELF file, checked to be one, from a
 * descriptor its caller opened safely or from a probe's file; its symbols,
 * one by one, and what an object symbol holds. */
#include "symbols/elf_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

/* Whether fd's ELF header claims extended section or program header
 * numbering (the count in section 0's header): no linked file does, and
 * with it a sparse file of a few KB has libelf allocate and fill 256 bytes
 * for each of millions of sections. Either byte order: the tests are of 0
 * and 0xffff. */
static bool extended_numbering(int fd)
{
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} h;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.e64.e_ident, ELFMAG, SELFMAG))
		return false;
	if (h.e64.e_ident[EI_CLASS] == ELFCLASS64)
		return (h.e64.e_shnum == 0 && h.e64.e_shoff) || h.e64.e_phnum == PN_XNUM;
	return (h.e32.e_shnum == 0 && h.e32.e_shoff) || h.e32.e_phnum == PN_XNUM;
}

/* Whether each string table of elf costs libelf what it holds to give a
 * name: none compressed (elf_strptr would inflate it, up to 1000 times its
 * size), each ending with NUL (else elf_strptr scans from the name to the
 * table's end at each call). Its last byte read with pread. */
static bool string_tables_sound(Elf *elf, int fd)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		char last;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB || !sh.sh_size)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) ||
		    (pread(fd, &last, 1, (off_t)(sh.sh_offset + sh.sh_size - 1)) == 1 && last))
			return false;
	}
	return true;
}

static Elf *open_checked(int fd, Elf_Cmd cmd)
{
	Elf *elf;

	if (extended_numbering(fd)) {
		errno = EBADMSG;
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, cmd, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		if (string_tables_sound(elf, fd))
			return elf;
		elf_end(elf);
		errno = EBADMSG;
		return NULL;
	}
	if (elf)
		elf_end(elf);
	errno = ENOEXEC;
	return NULL;
}

Elf *elf_open_fd(int fd)
{
	return open_checked(fd, ELF_C_READ_MMAP);
}

Elf *elf_open_fd_pread(int fd)
{
	return open_checked(fd, ELF_C_READ);
}

Elf *elf_open_path(const char *path, int *fd, char *err, size_t errlen)
{
	Elf *elf;

	int saved;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		saved = errno;
		rt_format(err, errlen, "cannot read %s: %s", path, strerror(saved));
		errno = saved;
		return NULL;
	}
	elf = elf_open_fd(*fd);
	if (!elf) {
		close(*fd);
		*fd = -1;
		rt_format(err, errlen, "%s is not an ELF file: give a program or a shared library",
			  path);
		errno = ENOEXEC;
	}
	return elf;
}

void elf_each_symbol(Elf *elf, Elf64_Word table,
		     void (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx),
		     void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		size_t nr;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != table || !(d = elf_getdata(scn, NULL)))
			continue;
		nr = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		if (nr > d->d_size / sizeof(Elf64_Sym) + 1)
			continue;
		for (size_t i = 0; i < nr; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)))
				fn(elf, &sym, n, ctx);
		}
	}
}

void elf_each_dynamic_symbol(Elf *elf,
			     void (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx),
			     void *ctx)
{
	elf_each_symbol(elf, SHT_DYNSYM, fn, ctx);
}

size_t elf_symbol_bytes(Elf *elf, const GElf_Sym *sym, void *buf, size_t max)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;
	Elf_Data *d;
	uint64_t at, n = sym->st_size < max ? sym->st_size : max;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    sym->st_value < sh.sh_addr || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
		return 0;
	at = sym->st_value - sh.sh_addr;
	if (at > d->d_size)
		return 0;
	n = d->d_size - at < n ? d->d_size - at : n;
	memcpy(buf, (const char *)d->d_buf + at, n);
	return n;
}
