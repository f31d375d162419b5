/* SPDX-License-Identifier: GPL-2.0-only */
/* sdt_notes.h: the SystemTap SDT (USDT) probes an ELF file declares in its
 * .note.stapsdt, listed with their argument specs (libbpf attaches to them). */
#ifndef RINGTRACE_SDT_NOTES_H
#define RINGTRACE_SDT_NOTES_H

#include <stddef.h>
#include <stdint.h>

struct sdt_probe {
	char provider[64];
	char name[64];
	char args[256];       /* the spec as written: "-4@%esi 8@-8(%rbp)" */
	unsigned int nr_args; /* its space-separated arguments */
	uint16_t arg_signed;  /* bit i: argument i+1's size is negative (signed) */
	int has_semaphore;
};

/* Reads path's probes into *out (malloc'd, *nr of them; none is not an
 * error). 0; -errno with err set if path cannot be read or is not an ELF file. */
int sdt_notes_read(const char *path, struct sdt_probe **out, size_t *nr, char *err,
		   size_t errlen);

#endif
