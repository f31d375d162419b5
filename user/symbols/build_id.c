/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id.c: the GNU build-id of an open ELF file (libelf, read with pread,
 * never mapped) and the place a file with a given build-id is kept. */
#include "symbols/build_id.h"

#include <elfutils/libdwelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>

ssize_t build_id_read(int fd, uint8_t id[BUILD_ID_MAX])
{
	const void *note;
	ssize_t len = -1;
	Elf *elf;

	elf_version(EV_CURRENT);
	/* ELF_C_READ: libelf reads what it needs with pread */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		len = dwelf_elf_gnu_build_id(elf, &note);
		if (len > 0 && len <= BUILD_ID_MAX)
			memcpy(id, note, (size_t)len);
		else
			len = 0;
	}
	if (elf)
		elf_end(elf);
	return len;
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
