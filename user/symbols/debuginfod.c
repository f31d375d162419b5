/* SPDX-License-Identifier: GPL-2.0-only */
/* debuginfod.c: fetches a stripped file's separate debug file by build-id from
 * the servers DEBUGINFOD_URLS names, with libdebuginfod's client and cache. */
#include "symbols/debuginfod.h"

#include <elfutils/debuginfod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/build_id.h"

bool debuginfod_wanted(Elf *elf)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	Elf_Scn *scn = NULL;

	if (!urls || !urls[0])
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return false;
	}
	return true;
}

/* What a fetch says on stderr: once, when a transfer starts (a file in the
 * client's cache needs none). */
struct fetch_note {
	char id[2 * BUILD_ID_MAX + 1]; /* hex */
	bool said;
};

static int on_progress(debuginfod_client *c, long done, long total)
{
	struct fetch_note *n = debuginfod_get_user_data(c);
	const char *url = debuginfod_get_url(c);

	(void)done;
	(void)total;
	if (n && !n->said) {
		rt_warn("fetching the debug file of build-id %s from %s", n->id,
			url ? url : "debuginfod");
		n->said = true;
	}
	return 0; /* go on */
}

int debuginfod_fetch_debuginfo(const uint8_t *build_id, size_t len, char *path, size_t pathlen)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
	struct fetch_note note = { .said = false };
	debuginfod_client *c;
	char *found = NULL;
	int fd;

	if (!urls || !urls[0] || !len || len > BUILD_ID_MAX)
		return -1;
	c = debuginfod_begin();
	if (!c)
		return -1;
	for (size_t i = 0; i < len; i++)
		snprintf(note.id + 2 * i, 3, "%02x", build_id[i]);
	debuginfod_set_user_data(c, &note);
	debuginfod_set_progressfn(c, on_progress);
	fd = debuginfod_find_debuginfo(c, build_id, (int)len, &found);
	debuginfod_end(c);
	if (fd < 0) {
		if (note.said)
			rt_warn("no debug file of build-id %s from debuginfod: %s", note.id,
				strerror(-fd));
		return -1;
	}
	close(fd);
	snprintf(path, pathlen, "%s", found);
	free(found);
	return 0;
}
