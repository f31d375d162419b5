/* SPDX-License-Identifier: GPL-2.0-only */
/* output_file.c: a file the user names for a command's output (a flame
 * graph, a pprof profile, a merged recording), never opened through a
 * symlink nor into anything but a regular file of the caller's. */
#include "sys/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"

int output_path_create(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		rt_format(err, errlen, "cannot create %s: %s%s", path, strerror(errno),
			  errno == EEXIST ? " (remove it or choose another name)" : "");
		return -errno;
	}
	return fd;
}

int output_path_replace(const char *path, bool shareable, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      shareable ? 0666 : 0600);
	struct stat st;

	if (fd >= 0 || errno != EEXIST) {
		if (fd < 0)
			rt_format(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return fd < 0 ? -errno : fd;
	}
	/* there already: a FIFO is not waited on, a symlink not followed */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		rt_format(err, errlen, "%s exists and is not a regular file of yours with one link (%s): remove it or choose another name",
			  path, fd < 0 && errno == ELOOP ? "a symlink" : fd < 0 ? strerror(errno) : "refused");
		if (fd >= 0)
			close(fd);
		return -EEXIST;
	}
	if ((!shareable && (st.st_mode & 077) && fchmod(fd, 0600)) || ftruncate(fd, 0)) {
		rt_format(err, errlen, "cannot write over %s: %s", path, strerror(errno));
		close(fd);
		return -errno;
	}
	return fd;
}
