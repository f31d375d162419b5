/* SPDX-License-Identifier: GPL-2.0-only */
/* sdt_notes.h: the SystemTap SDT (USDT) probes an ELF file declares in its
 * .note.stapsdt, listed with their argument specs and where each site and
 * its semaphore are in the file (uprobes attach by file offset). */
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
	uint64_t offset;      /* the site's file offset (its pc, moved as the
				 .stapsdt.base section was, in the loadable
				 segment that holds it); 0: in none */
	uint64_t semaphore_offset; /* its semaphore's file offset; 0: none */
};

/* The most sites a file's notes are read for: each is a probe site libbpf or
 * the kernel would attach, and a note is ~40 bytes of a binary. */
#define SDT_NOTES_MAX (1u << 17)

/* Reads path's probes into *out (malloc'd, *nr of them; none is not an
 * error). 0; -errno with err set if path cannot be read or is not an ELF
 * file, -E2BIG if it declares more than SDT_NOTES_MAX sites. */
int sdt_notes_read(const char *path, struct sdt_probe **out, size_t *nr, char *err,
		   size_t errlen);

#endif
