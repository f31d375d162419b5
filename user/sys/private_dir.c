/* SPDX-License-Identifier: GPL-2.0-only */
/* private_dir.c: a directory of this user's alone (a cache's), opened one
 * component at a time with none a symlink and the missing ones made 0700,
 * and whether a file found in it is this user's alone. */
#include "sys/private_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool private_dir_ours_alone(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Opens (creating it 0700 if missing) the directory name under at; -1 with
 * errno set. */
static int open_dir_at(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(at, name, 0700) && errno != EEXIST)
			return -1;
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

int private_dir_open(const char *path, char *why, size_t whylen)
{
	char *copy = strdup(path), *save = NULL;
	int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (!copy || fd < 0) {
		snprintf(why, whylen, "cannot be opened: %s", strerror(copy ? errno : ENOMEM));
		goto fail;
	}
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		int next;

		if (!strcmp(name, "..")) {
			snprintf(why, whylen, "goes up a directory (..): name it without");
			goto fail;
		}
		next = open_dir_at(fd, name);
		close(fd);
		fd = next;
		if (fd < 0) {
			snprintf(why, whylen, "cannot be opened: %s%s", strerror(errno),
				 errno == ELOOP || errno == ENOTDIR ?
				 " (a symlink or not a directory on the way)" : "");
			goto fail;
		}
	}
	if (fstat(fd, &st) || !private_dir_ours_alone(&st)) {
		snprintf(why, whylen, "is not a directory of this user that no one else may write");
		goto fail;
	}
	free(copy);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(copy);
	return -1;
}
