/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_map.c: the symbols a JIT names for its code in perf-PID.map ("START
 * SIZE name" per line, hex), as perf reads them for anonymous executable memory. */
#include "symbols/perf_map.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/byte_buffer.h"
#include "sys/safe_open.h"

/* A map larger than this is not read. */
#define PERF_MAP_MAX_BYTES (256u << 20)

static int compare_symbols(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Parses the lines of f; a line that is not "START SIZE name" is skipped,
 * as perf skips it. */
static int parse(FILE *f, struct symtab *t)
{
	struct byte_buffer names = { 0 };
	struct symbol *syms = NULL;
	size_t nr = 0, cap = 0;
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		int at = 0;
		size_t len;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx %llx %n", &start, &size, &at) < 2 || !at || !line[at] ||
		    !size || size > UINT64_MAX - start)
			continue;
		if (nr == cap) {
			struct symbol *grown = realloc(syms, (cap = cap ? 2 * cap : 64) * sizeof(*syms));

			if (!grown)
				goto fail;
			syms = grown;
		}
		len = strlen(line + at) + 1;
		/* the name's offset until the arena stops moving */
		syms[nr++] = (struct symbol){ start, start + size, (const char *)(uintptr_t)names.len,
					      STB_GLOBAL, STT_FUNC, false };
		if (!byte_buffer_append(&names, line + at, len))
			goto fail;
	}
	if (nr)
		qsort(syms, nr, sizeof(*syms), compare_symbols);
	for (size_t i = 0; i < nr; i++) {
		/* the newest code at an address wins only if sorted after: trim overlaps */
		if (i + 1 < nr && syms[i].end > syms[i + 1].start)
			syms[i].end = syms[i + 1].start;
		syms[i].name = (const char *)names.data + (uintptr_t)syms[i].name;
	}
	memset(t, 0, sizeof(*t));
	t->syms = syms;
	t->nr = nr;
	t->names = (char *)names.data;
	t->names_len = names.len;
	return 0;
fail:
	free(syms);
	byte_buffer_free(&names);
	return -ENOMEM;
}

static int load(struct symtab *t, int fd)
{
	FILE *f = fdopen(fd, "re");
	int ret;

	if (!f) {
		int e = errno;

		close(fd);
		return -e;
	}
	ret = parse(f, t);
	fclose(f);
	return ret;
}

int perf_map_load(struct symtab *t, const char *root, uint32_t pid, const char *const *dirs)
{
	char path[4096];
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	for (; dirs && *dirs; dirs++) {
		snprintf(path, sizeof(path), "%s/perf-%u.map", *dirs, pid);
		fd = safe_openat(AT_FDCWD, path, 0, &st);
		if (fd >= 0 && st.st_size <= PERF_MAP_MAX_BYTES)
			return load(t, fd);
		if (fd >= 0)
			close(fd);
	}
	/* as perf: only a map of ours or root's */
	snprintf(path, sizeof(path), "%s/tmp/perf-%u.map", root ? root : "", pid);
	fd = safe_openat(AT_FDCWD, path, 0, &st);
	if (fd >= 0 && (!st.st_uid || st.st_uid == geteuid()) && st.st_size <= PERF_MAP_MAX_BYTES)
		return load(t, fd);
	if (fd >= 0)
		close(fd);
	return -ENOENT;
}
