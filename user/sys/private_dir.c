/* SPDX-License-Identifier: GPL-2.0-only */
/* private_dir.c: a directory of this user's alone (a cache's), opened one
 * component at a time with none a symlink and the missing ones made 0700,
 * and whether a file found in it is this user's alone. */
#include "sys/private_dir.h"

#include <errno.h>
#include <fcntl.h>
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

int private_dir_open(const char *path, enum private_dir_refusal *why)
{
	char *copy = strdup(path), *save = NULL;
	int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;
	struct stat st;

	*why = PRIVATE_DIR_OPEN_FAILED;
	if (!copy || fd < 0) {
		e = copy ? errno : ENOMEM;
		goto fail;
	}
	for (char *name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		int next;

		if (!strcmp(name, "..")) {
			*why = PRIVATE_DIR_GOES_UP;
			e = EINVAL;
			goto fail;
		}
		next = open_dir_at(fd, name);
		e = errno;
		close(fd);
		fd = next;
		if (fd < 0)
			goto fail;
	}
	if (fstat(fd, &st) || !private_dir_ours_alone(&st)) {
		*why = PRIVATE_DIR_NOT_OURS;
		e = EPERM;
		goto fail;
	}
	free(copy);
	return fd;
fail:
	if (fd >= 0)
		close(fd);
	free(copy);
	errno = e;
	return -1;
}
