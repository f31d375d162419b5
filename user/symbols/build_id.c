/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id.c: the GNU build-id of an open ELF file (libelf, read with pread,
 * never mapped) and the place a file with a given build-id is kept. */
#include "symbols/build_id.h"

#include <elf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbols/elf_open.h"
#include "sys/safe_open.h"

ssize_t build_id_read(int fd, uint8_t id[BUILD_ID_MAX])
{
	const void *note;
	ssize_t len = -ENOEXEC;
	Elf *elf;

	/* libelf reads what it needs with pread */
	elf = elf_open_fd_pread(fd);
	if (!elf)
		return len;
	len = dwelf_elf_gnu_build_id(elf, &note);
	if (len > 0 && len <= BUILD_ID_MAX)
		memcpy(id, note, (size_t)len);
	else
		len = 0;
	elf_end(elf);
	return len;
}

/* Bare notes have no ELF header for libelf to start from: each is an
 * Elf64_Nhdr, its name and its descriptor, both padded to 4 bytes. */
ssize_t build_id_read_notes(const char *path, uint8_t id[BUILD_ID_MAX])
{
	uint8_t buf[4096];
	ssize_t n = safe_read_file(AT_FDCWD, path, (char *)buf, sizeof(buf));
	size_t off = 0;

	if (n < 0)
		return n;
	while (off + sizeof(Elf64_Nhdr) <= (size_t)n) {
		Elf64_Nhdr nh;
		size_t name, desc;

		memcpy(&nh, buf + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + ((nh.n_namesz + 3u) & ~3u);
		if (nh.n_namesz > (size_t)n || nh.n_descsz > (size_t)n || desc + nh.n_descsz > (size_t)n)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4)) {
			if (!nh.n_descsz || nh.n_descsz > BUILD_ID_MAX)
				return 0;
			memcpy(id, buf + desc, nh.n_descsz);
			return nh.n_descsz;
		}
		off = desc + ((nh.n_descsz + 3u) & ~3u);
	}
	return 0;
}

bool build_id_matches(int fd, const uint8_t *id, size_t len)
{
	uint8_t got[BUILD_ID_MAX];
	ssize_t n = build_id_read(fd, got);

	return len && n == (ssize_t)len && !memcmp(got, id, len);
}

void build_id_path(char *buf, size_t buflen, const char *dir, const uint8_t *build_id,
		   size_t len, const char *suffix)
{
	int n = snprintf(buf, buflen, "%s%s%02x/", dir ? dir : "", dir ? "/" : "",
			 len ? build_id[0] : 0);

	for (size_t i = 1; i < len && n >= 0 && (size_t)n + 3 < buflen; i++)
		n += snprintf(buf + n, buflen - (size_t)n, "%02x", build_id[i]);
	if (n >= 0 && (size_t)n < buflen)
		snprintf(buf + n, buflen - (size_t)n, "%s", suffix);
}
