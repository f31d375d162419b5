/* SPDX-License-Identifier: GPL-2.0-only */
/* sdt_notes.c: the SystemTap SDT (USDT) probes an ELF file declares in its
 * .note.stapsdt, listed with their argument specs and where each site and
 * its semaphore are in the file (uprobes attach by file offset). */
#include "symbols/sdt_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/elf_open.h"

#define NT_STAPSDT 3

/* The argument count and signedness of a spec: "N@LOC" words, N < 0 signed. */
static void count_args(struct sdt_probe *p)
{
	const char *s = p->args;

	while (*s) {
		s += strspn(s, " ");
		if (!*s)
			break;
		if (*s == '-' && p->nr_args < 16)
			p->arg_signed |= (uint16_t)(1u << p->nr_args);
		p->nr_args++;
		s += strcspn(s, " ");
	}
}

/* One stapsdt note: pc, base, semaphore (address words), then provider,
 * name and args, NUL-terminated. 0 if it is malformed. */
struct note_addresses {
	uint64_t pc, base, semaphore;
};

static int parse_note(const uint8_t *desc, size_t len, size_t addr_size, struct sdt_probe *p,
		      struct note_addresses *a)
{
	const char *strs = (const char *)desc + 3 * addr_size, *end = (const char *)desc + len;
	const char *parts[3];
	uint64_t sema = 0;

	if (len < 3 * addr_size)
		return 0;
	memset(a, 0, sizeof(*a));
	memcpy(&a->pc, desc, addr_size);
	memcpy(&a->base, desc + addr_size, addr_size);
	memcpy(&sema, desc + 2 * addr_size, addr_size);
	a->semaphore = sema;
	for (int i = 0; i < 3; i++) {
		const char *nul = memchr(strs, '\0', (size_t)(end - strs));

		if (!nul)
			return 0;
		parts[i] = strs;
		strs = nul + 1;
	}
	memset(p, 0, sizeof(*p));
	snprintf(p->provider, sizeof(p->provider), "%s", parts[0]);
	snprintf(p->name, sizeof(p->name), "%s", parts[1]);
	snprintf(p->args, sizeof(p->args), "%s", parts[2]);
	p->has_semaphore = sema != 0;
	count_args(p);
	return 1;
}

/* The file offset of address addr, in the loadable segment that holds it
 * (an executable one only, if exec); 0 if none does. */
static uint64_t file_offset(Elf *elf, size_t nr_phdrs, uint64_t addr, int exec)
{
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (exec && !(ph.p_flags & PF_X)))
			continue;
		if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_memsz)
			return addr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/* Where a note's site and semaphore are in the file: its pc moved as the
 * .stapsdt.base section was since the note was written (a prelinked file),
 * base_addr that section's address (0: none). */
static void place_note(Elf *elf, size_t nr_phdrs, uint64_t base_addr,
		       const struct note_addresses *a, struct sdt_probe *p)
{
	uint64_t pc = a->pc;

	if (base_addr && a->base)
		pc += base_addr - a->base;
	p->offset = file_offset(elf, nr_phdrs, pc, 1);
	p->semaphore_offset = a->semaphore ? file_offset(elf, nr_phdrs, a->semaphore, 0) : 0;
}

/* Grows *out by one probe (doubling its room, *cap): NULL if out of memory. */
static struct sdt_probe *next_probe(struct sdt_probe **out, size_t nr, size_t *cap)
{
	if (nr == *cap) {
		size_t want = *cap ? *cap * 2 : 16;
		struct sdt_probe *grown = reallocarray(*out, want, sizeof(*grown));

		if (!grown)
			return NULL;
		*out = grown;
		*cap = want;
	}
	return &(*out)[nr];
}

int sdt_notes_read(const char *path, struct sdt_probe **out, size_t *nr, char *err,
		   size_t errlen)
{
	size_t addr_size, shstrndx, nr_phdrs = 0, cap = 0;
	uint64_t base_addr = 0;
	Elf_Scn *scn = NULL;
	int fd, ret = 0;
	Elf *elf = elf_open_path(path, &fd, err, errlen);

	*out = NULL;
	*nr = 0;
	if (!elf)
		return -errno;
	addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &nr_phdrs))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;

		if (gelf_getshdr(scn, &sh) && (sname = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(sname, ".stapsdt.base"))
			base_addr = sh.sh_addr;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t at = 0, name_at, desc_at;
		const char *sname;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt") || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((at = gelf_getnote(data, at, &nh, &name_at, &desc_at)) > 0) {
			struct sdt_probe p, *slot;
			struct note_addresses a;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)data->d_buf + name_at, "stapsdt", 8) ||
			    !parse_note((const uint8_t *)data->d_buf + desc_at, nh.n_descsz,
					addr_size, &p, &a))
				continue;
			if (*nr == SDT_NOTES_MAX) {
				rt_format(err, errlen,
					  "%s declares more than %u USDT probe sites: not read",
					  path, SDT_NOTES_MAX);
				ret = -E2BIG;
				goto out;
			}
			if (!(slot = next_probe(out, *nr, &cap))) {
				rt_format(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			place_note(elf, nr_phdrs, base_addr, &a, &p);
			*slot = p;
			(*nr)++;
		}
	}
out:
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
	}
	elf_end(elf);
	close(fd);
	return ret;
}
