/* SPDX-License-Identifier: GPL-2.0-only */
/* debuginfod.c: fetches a stripped file's separate debug file by build-id from
 * the servers DEBUGINFOD_URLS names, with libdebuginfod's client and cache.
 * The library is loaded when first needed (dlopen, as libdw loads it): linked
 * in, it and libcurl's two dozen libraries cost every start of ringtrace
 * 15-20 ms on the project's machine, for a fetch few runs make. */
#include "symbols/debuginfod.h"

#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <errno.h>
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

/* The client's functions, from libdebuginfod.so.1 (its soname in every
 * elfutils since the library came, 0.178). */
static struct {
	bool tried, loaded;
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_end) *end;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
	__typeof__(debuginfod_set_progressfn) *set_progressfn;
	__typeof__(debuginfod_set_user_data) *set_user_data;
	__typeof__(debuginfod_get_user_data) *get_user_data;
	__typeof__(debuginfod_get_url) *get_url;
} client;

static bool load_client(void)
{
	void *lib;

	if (client.tried)
		return client.loaded;
	client.tried = true;
	lib = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rt_warn("cannot fetch debug files from debuginfod: %s (install libdebuginfod1)",
			dlerror());
		return false;
	}
	client.begin = (__typeof__(client.begin))dlsym(lib, "debuginfod_begin");
	client.end = (__typeof__(client.end))dlsym(lib, "debuginfod_end");
	client.find_debuginfo = (__typeof__(client.find_debuginfo))dlsym(lib, "debuginfod_find_debuginfo");
	client.set_progressfn = (__typeof__(client.set_progressfn))dlsym(lib, "debuginfod_set_progressfn");
	client.set_user_data = (__typeof__(client.set_user_data))dlsym(lib, "debuginfod_set_user_data");
	client.get_user_data = (__typeof__(client.get_user_data))dlsym(lib, "debuginfod_get_user_data");
	client.get_url = (__typeof__(client.get_url))dlsym(lib, "debuginfod_get_url");
	client.loaded = client.begin && client.end && client.find_debuginfo && client.set_progressfn &&
			client.set_user_data && client.get_user_data && client.get_url;
	if (!client.loaded)
		rt_warn("cannot fetch debug files from debuginfod: libdebuginfod.so.1 lacks a function of its client API");
	/* never closed: the library stays for the rest of the run */
	return client.loaded;
}

static int on_progress(debuginfod_client *c, long done, long total)
{
	struct fetch_note *n = client.get_user_data(c);
	const char *url = client.get_url(c);

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

	if (!urls || !urls[0] || !len || len > BUILD_ID_MAX || !load_client())
		return -ENOENT;
	c = client.begin();
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		snprintf(note.id + 2 * i, 3, "%02x", build_id[i]);
	client.set_user_data(c, &note);
	client.set_progressfn(c, on_progress);
	fd = client.find_debuginfo(c, build_id, (int)len, &found);
	client.end(c);
	if (fd < 0) {
		if (note.said)
			rt_warn("no debug file of build-id %s from debuginfod: %s", note.id,
				strerror(-fd));
		return fd;
	}
	close(fd);
	snprintf(path, pathlen, "%s", found);
	free(found);
	return 0;
}
