/* SPDX-License-Identifier: GPL-2.0-only */
/* textfile.c: the metrics as a file for node_exporter's textfile collector,
 * DIR/ringtrace.prom, replaced whole through a temporary file renamed over it. */
#include "export/textfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

int textfile_open(struct textfile *t, const char *dir, char *err, size_t errlen)
{
	t->dir = dir;
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->dirfd < 0) {
		rt_format(err, errlen, "--textfile %s: %s", dir,
			  errno == ELOOP || errno == ENOTDIR ? "not a real directory"
							     : strerror(errno));
		return -errno;
	}
	return 0;
}

/* A fresh temporary file in the directory, created exclusively. */
static int create_temporary(struct textfile *t, char *name, size_t len)
{
	struct timespec ts;

	for (int attempt = 0; attempt < 16; attempt++) {
		int fd;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(name, len, ".%s.%d.%ld.%d", TEXTFILE_NAME, (int)getpid(), ts.tv_nsec, attempt);
		fd = openat(t->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	errno = EEXIST;
	return -EEXIST;
}

int textfile_write(struct textfile *t, const struct byte_buffer *body, char *err, size_t errlen)
{
	char tmp[128];
	int fd = create_temporary(t, tmp, sizeof(tmp));
	bool ok;

	if (fd < 0) {
		rt_format(err, errlen, "cannot write %s/%s: %s", t->dir, TEXTFILE_NAME, strerror(errno));
		return fd;
	}
	/* node_exporter runs as its own user: the file is world-readable,
	 * whatever the umask */
	ok = !fchmod(fd, 0644) && write(fd, body->data, body->len) == (ssize_t)body->len;
	ok &= !close(fd);
	if (!ok || renameat(t->dirfd, tmp, t->dirfd, TEXTFILE_NAME)) {
		int e = errno ? errno : EIO;

		rt_format(err, errlen, "cannot write %s/%s: %s", t->dir, TEXTFILE_NAME, strerror(errno));
		unlinkat(t->dirfd, tmp, 0);
		return -e;
	}
	t->written = true;
	return 0;
}

void textfile_remove(struct textfile *t)
{
	if (t->written && t->dirfd >= 0 && unlinkat(t->dirfd, TEXTFILE_NAME, 0) && errno != ENOENT)
		rt_warn("cannot remove %s/%s: %s", t->dir, TEXTFILE_NAME, strerror(errno));
}

void textfile_close(struct textfile *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}
