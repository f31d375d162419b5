/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_open.h: libelf's handle on an ELF file, checked to be one, from a
 * descriptor its caller opened safely or from a probe's file; its symbols,
 * one by one, and what an object symbol holds. */
#ifndef RINGTRACE_ELF_OPEN_H
#define RINGTRACE_ELF_OPEN_H

#include <gelf.h>
#include <libelf.h>

/* libelf's handle on the file open as fd, mapped (ELF_C_READ_MMAP), if it
 * is an ELF file (not an archive, not anything else): else NULL with errno
 * ENOEXEC; EBADMSG for headers libelf would pay for without bound (extended
 * section or program header numbering, a string table compressed or not
 * ending with NUL). fd stays the caller's, to close after elf_end. */
Elf *elf_open_fd(int fd);
/* The same, read with pread as libelf needs it (ELF_C_READ), never mapped. */
Elf *elf_open_fd_pread(int fd);

/* A probe's file: path is /proc/self/fd/N, a descriptor probe_resolve
 * opened safely (so that a plain open of it is). Its handle and *fd, or
 * NULL with err naming the cause and errno set: ENOEXEC when it is no ELF
 * file, else why it cannot be read. */
Elf *elf_open_path(const char *path, int *fd, char *err, size_t errlen);

/* Calls fn on each defined symbol of elf's symbol table of section type
 * table (SHT_SYMTAB, SHT_DYNSYM) with its name. */
void elf_each_symbol(Elf *elf, Elf64_Word table,
		     void (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx),
		     void *ctx);
/* ...of its .dynsym (what a stripped file still exports). */
void elf_each_dynamic_symbol(Elf *elf,
			     void (*fn)(Elf *elf, const GElf_Sym *sym, const char *name, void *ctx),
			     void *ctx);

/* Up to max bytes of object sym as the file initializes it (what its
 * section holds of it) into buf: how many; 0 if none (a .bss object's, or
 * one outside its section). */
size_t elf_symbol_bytes(Elf *elf, const GElf_Sym *sym, void *buf, size_t max);

#endif
