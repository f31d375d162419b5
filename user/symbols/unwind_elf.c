/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_elf.c: the ELF headers an unwind table is compiled from, checked
 * against the file's real size and read: its code ranges, its CFI sections. */
#include "symbols/unwind_elf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static int cmp_code_range(const void *a, const void *b)
{
	const struct code_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int add_code_range(struct code_range **v, size_t *nr, size_t *cap, uint64_t start,
			  uint64_t end)
{
	if (start >= end)
		return 0;
	if (*nr == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;
		struct code_range *grown = realloc(*v, grown_cap * sizeof(**v));

		if (!grown)
			return -ENOMEM;
		*v = grown;
		*cap = grown_cap;
	}
	(*v)[(*nr)++] = (struct code_range){ start, end };
	return 0;
}

/* The executable sections' [start, end), sorted, each starting where the
 * one before ends at the earliest; or the executable segments' when there
 * are no section headers. -ENOMEM out of memory. */
ssize_t unwind_elf_code_ranges(Elf *elf, struct code_range **ranges)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0, kept = 0, phnum;
	uint64_t end = 0;

	*ranges = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type == SHT_PROGBITS &&
		    add_code_range(ranges, &n, &cap, sh.sh_addr, sh.sh_addr + sh.sh_size))
			return -ENOMEM;
	}
	if (n == 0 && !elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) &&
			    add_code_range(ranges, &n, &cap, ph.p_vaddr, ph.p_vaddr + ph.p_memsz))
				return -ENOMEM;
		}
	}
	if (n)
		qsort(*ranges, n, sizeof(**ranges), cmp_code_range);
	for (size_t i = 0; i < n; i++) {
		struct code_range r = (*ranges)[i];

		if (kept && r.start < end)
			r.start = end;
		if (r.start >= r.end)
			continue;
		(*ranges)[kept++] = r;
		end = r.end;
	}
	return (ssize_t)kept;
}

/* Every size the headers claim, against the file's real size: a section's
 * or a loaded segment's bytes past the end, or executable addresses that
 * wrap, are a lie (a corrupt or hostile file). UNWIND_BUILT if none. And
 * the file must be x86-64's (64-bit, little-endian): the walk unwinds no
 * other code, and libdw reads some values of a big-endian file's CFI in
 * the host's order. */
enum unwind_refusal unwind_elf_check_claims(Elf *elf, uint64_t file_size, char *err,
					    size_t errlen)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0, phnum;
	GElf_Ehdr eh = { .e_machine = EM_NONE };

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64) {
		rt_format(err, errlen, "not an x86-64 ELF file (class %u, data %u, machine %u)",
			  eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA], eh.e_machine);
		return UNWIND_NOT_ELF;
	}
	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			rt_format(err, errlen, "section %zu's header: %s", elf_ndxscn(scn),
				  elf_errmsg(-1));
			return UNWIND_NOT_ELF;
		}
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)) {
			name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
			rt_format(err, errlen,
				  "section %zu (%s) claims %#" PRIx64 " bytes at %#" PRIx64
				  ", past the file's end (%" PRIu64 " bytes)",
				  elf_ndxscn(scn), name ? name : "?", (uint64_t)sh.sh_size,
				  (uint64_t)sh.sh_offset, file_size);
			return UNWIND_LYING_HEADER;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_addr + sh.sh_size < sh.sh_addr) {
			rt_format(err, errlen, "executable section %zu's addresses wrap past 2^64",
				  elf_ndxscn(scn));
			return UNWIND_LYING_HEADER;
		}
	}
	if (elf_getphdrnum(elf, &phnum))
		phnum = 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > file_size || ph.p_filesz > file_size - ph.p_offset) {
			rt_format(err, errlen,
				  "segment %zu claims %#" PRIx64 " bytes at %#" PRIx64
				  ", past the file's end (%" PRIu64 " bytes)",
				  i, (uint64_t)ph.p_filesz, (uint64_t)ph.p_offset, file_size);
			return UNWIND_LYING_HEADER;
		}
		if ((ph.p_flags & PF_X) && ph.p_vaddr + ph.p_memsz < ph.p_vaddr) {
			rt_format(err, errlen, "executable segment %zu's addresses wrap past 2^64",
				  i);
			return UNWIND_LYING_HEADER;
		}
	}
	return UNWIND_BUILT;
}

/* The name of scn, a section with bytes in the file (its header into
 * *sh), or NULL. */
static const char *section_with_bytes(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
		return NULL;
	return elf_strptr(elf, shstrndx, sh->sh_name);
}

Elf_Scn *unwind_elf_next_section(Elf *elf, Elf_Scn *after, const char *name)
{
	Elf_Scn *scn = after;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if ((n = section_with_bytes(elf, shstrndx, scn, &sh)) && !strcmp(n, name))
			return scn;
	return NULL;
}

Elf_Scn *unwind_elf_section(Elf *elf, const char *name)
{
	return unwind_elf_next_section(elf, NULL, name);
}

Elf_Scn *unwind_elf_debug_frame(Elf *elf)
{
	Elf_Scn *scn = NULL, *found = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!(n = section_with_bytes(elf, shstrndx, scn, &sh)) || !strstr(n, "debug_frame"))
			continue;
		if (found || strcmp(n, ".debug_frame") || (sh.sh_flags & SHF_GROUP))
			return NULL;
		found = scn;
	}
	return found;
}

/* The bytes of scn's CFI once read: decompressed if it is compressed. */
uint64_t unwind_elf_section_bytes(Elf_Scn *scn)
{
	GElf_Shdr sh;
	GElf_Chdr ch;

	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch))
		return ch.ch_size;
	return sh.sh_size;
}

/* A GNU-compressed section's (.zdebug_*) inflated size: "ZLIB", then it in
 * 8 bytes big-endian. */
static uint64_t zdebug_bytes(Elf_Scn *scn)
{
	Elf_Data *raw = elf_rawdata(scn, NULL);
	const uint8_t *p = raw ? raw->d_buf : NULL;
	uint64_t size = 0;

	if (!p || raw->d_size < 12 || memcmp(p, "ZLIB", 4))
		return 0;
	for (int i = 4; i < 12; i++)
		size = size << 8 | p[i];
	return size;
}

uint64_t unwind_elf_inflated_bytes(Elf *elf, Elf_Scn *except)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t total = 0;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		uint64_t bytes = 0;

		if (scn == except || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		/* a .zdebug_ section may be SHF_COMPRESSED too: libdw's
		 * elf_compress_gnu refuses it, elf_compress inflates it */
		if ((!strncmp(n, ".debug_", 7) || !strncmp(n, ".zdebug_", 8)) &&
		    (sh.sh_flags & SHF_COMPRESSED))
			bytes = unwind_elf_section_bytes(scn);
		else if (!strncmp(n, ".zdebug_", 8))
			bytes = zdebug_bytes(scn);
		total = total + bytes < total ? UINT64_MAX : total + bytes;
	}
	return total;
}

int64_t unwind_elf_exec_vaddr_delta(Elf *elf)
{
	size_t phnum;

	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			return (int64_t)(ph.p_vaddr - ph.p_offset);
	}
	return 0;
}
