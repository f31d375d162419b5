/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_name_ranges.h: the byte ranges of an ELF file its names and their
 * lookup need (headers, symbol and string tables, notes, relocations, the
 * PLT, CFI): all a copy of a deleted binary keeps, the rest left a hole. */
#ifndef RINGTRACE_ELF_NAME_RANGES_H
#define RINGTRACE_ELF_NAME_RANGES_H

#include <stddef.h>
#include <stdint.h>

/* Ranges found at most (sections past them are left out). */
#define ELF_NAME_RANGES_MAX 64

struct file_range {
	uint64_t from, to; /* [from, to) */
};

/* Of fd (an ELF file of size bytes, opened safely): the ranges, sorted,
 * merged where they touch, each inside [0, size), into out (max of them).
 * Their count, or -ENOEXEC if fd is not an ELF file (or its headers lie
 * outside it). Read through pread, never mapped. */
int elf_name_ranges(int fd, uint64_t size, struct file_range *out, size_t max);
/* The bytes the n ranges hold. */
uint64_t file_ranges_bytes(const struct file_range *r, size_t n);

#endif
