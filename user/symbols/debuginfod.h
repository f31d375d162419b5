/* SPDX-License-Identifier: GPL-2.0-only */
/* debuginfod.h: fetches a stripped file's separate debug file by build-id from
 * the servers DEBUGINFOD_URLS names, with libdebuginfod's client and cache. */
#ifndef RINGTRACE_DEBUGINFOD_H
#define RINGTRACE_DEBUGINFOD_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether elf's symbols are worth asking debuginfod for: DEBUGINFOD_URLS is
 * set and elf has no .symtab (stripped). */
bool debuginfod_wanted(Elf *elf);

/* Fetches the debug file of that build-id (from the client's cache when it
 * is there, else from the servers, with a note on stderr while it
 * downloads) and puts its path, in the cache, into path. 0, or -errno if
 * none of the servers has it, -ENOENT if DEBUGINFOD_URLS is unset. */
int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t pathlen);

#endif
