/* SPDX-License-Identifier: GPL-2.0-only */
/* sdt_notes.c: the SystemTap SDT (USDT) probes an ELF file declares in its
 * .note.stapsdt, listed with their argument specs (libbpf attaches to them). */
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
static int parse_note(const uint8_t *desc, size_t len, size_t addr_size, struct sdt_probe *p)
{
	const char *strs = (const char *)desc + 3 * addr_size, *end = (const char *)desc + len;
	const char *parts[3];
	uint64_t sema = 0;

	if (len < 3 * addr_size)
		return 0;
	memcpy(&sema, desc + 2 * addr_size, addr_size);
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

int sdt_notes_read(const char *path, struct sdt_probe **out, size_t *nr, char *err,
		   size_t errlen)
{
	size_t addr_size, shstrndx;
	Elf_Scn *scn = NULL;
	int fd, ret = 0;
	Elf *elf = elf_open_path(path, &fd, err, errlen);

	*out = NULL;
	*nr = 0;
	if (!elf)
		return -errno;
	addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out;
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
			struct sdt_probe p, *grown;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)data->d_buf + name_at, "stapsdt", 8) ||
			    !parse_note((const uint8_t *)data->d_buf + desc_at, nh.n_descsz,
					addr_size, &p))
				continue;
			grown = realloc(*out, (*nr + 1) * sizeof(*grown));
			if (!grown) {
				rt_format(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			*out = grown;
			(*out)[(*nr)++] = p;
		}
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}
