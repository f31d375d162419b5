/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir_files.c: the files ringtrace writes in its own output
 * directory (output_dir.h): made exclusively, or added to at their end. */
#include "sys/output_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"

int output_file_create(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		rt_format(err, errlen, "cannot create %s/%s: %s", dirpath, name, strerror(errno));
	return fd < 0 ? -errno : fd;
}

int output_file_append(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen)
{
	int fd = openat(dirfd, name,
			O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0)
		rt_format(err, errlen, "cannot open %s/%s to add to it: %s", dirpath, name,
			  strerror(errno));
	return fd < 0 ? -errno : fd;
}
