/* SPDX-License-Identifier: GPL-2.0-only */
/* elf_open.c: libelf's handle on an ELF file, checked to be one, from a
 * descriptor its caller opened safely or from a probe's file. */
#include "symbols/elf_open.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

Elf *elf_open_fd(int fd)
{
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	if (elf)
		elf_end(elf);
	errno = ENOEXEC;
	return NULL;
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
