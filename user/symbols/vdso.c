/* SPDX-License-Identifier: GPL-2.0-only */
/* vdso.c: the vdso, read from this process's own as perf reads its own (the
 * kernel maps one image into every process of a boot): its symbols, and the
 * image as a file to unwind through a recorded process's [vdso]. */
#include "symbols/vdso.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/log.h"

/* No vdso image is anywhere near this large (Linux's are two pages). */
#define VDSO_MAX (1u << 20)

/* The image's size: up to the end of its section headers, program headers
 * or loaded bytes, whichever is last (all of it lies inside the mapping). */
static size_t image_size(const ElfW(Ehdr) *e)
{
	const ElfW(Phdr) *ph;
	size_t end;

	if (memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_phoff > VDSO_MAX || e->e_shoff > VDSO_MAX ||
	    e->e_phentsize != sizeof(ElfW(Phdr)))
		return 0;
	end = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
	if (e->e_phoff + (size_t)e->e_phnum * sizeof(*ph) > end)
		end = e->e_phoff + (size_t)e->e_phnum * sizeof(*ph);
	ph = (const ElfW(Phdr) *)((const char *)e + e->e_phoff);
	for (unsigned int i = 0; i < e->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	return end <= VDSO_MAX ? end : 0;
}

/* This process's vdso image and its size, or NULL. */
static const ElfW(Ehdr) *own_image(size_t *len)
{
	const ElfW(Ehdr) *e = (const void *)getauxval(AT_SYSINFO_EHDR);

	*len = e ? image_size(e) : 0;
	return *len ? e : NULL;
}

int symtab_load_vdso(struct symtab *t, const uint8_t *want_id, size_t want_len, char *err,
		     size_t errlen)
{
	size_t len;
	const ElfW(Ehdr) *e = own_image(&len);

	memset(t, 0, sizeof(*t));
	if (!e) {
		rt_format(err, errlen, "this process has no vdso to read");
		return -ENOENT;
	}
	return symtab_load_elf_image(t, e, len, want_id, want_len, err, errlen);
}

static int vdso_fd = -2; /* -2: not made yet */

int vdso_open_own(void)
{
	size_t len;
	const ElfW(Ehdr) *e;

	if (vdso_fd == -2) {
		vdso_fd = -1;
		e = own_image(&len);
		if (e) {
			int fd = memfd_create("ringtrace-vdso", MFD_CLOEXEC);

			if (fd >= 0 && write(fd, e, len) == (ssize_t)len)
				vdso_fd = fd;
			else if (fd >= 0)
				close(fd);
		}
	}
	return vdso_fd >= 0 ? fcntl(vdso_fd, F_DUPFD_CLOEXEC, 0) : -1;
}
