/* SPDX-License-Identifier: GPL-2.0-only */
/* dir_entries.c: the entries of an open directory, one name at a time. */
#include "sys/dir_entries.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

int dir_each_entry(int dirfd, int (*fn)(int dirfd, const char *name, void *ctx), void *ctx)
{
	int fd = dup(dirfd), r = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	rewinddir(d); /* the duplicate shares the offset of earlier listings */
	while (!r && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r = fn(dirfd, de->d_name, ctx);
	closedir(d);
	return r;
}
