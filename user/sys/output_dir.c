/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir.c: creates the recording's output directory and the files in it
 * without following symlinks: directory 0700, files 0600, never reused blindly. */
#include "sys/output_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"

static bool is_data_file(const char *name)
{
	return !strcmp(name, "data") || !strncmp(name, "data.", 5);
}

/* Removes a snapshot directory a previous recording left: its data files and
 * accounting, then itself (anything else in it makes that fail). */
static int remove_snapshot_dir(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (is_data_file(de->d_name) || !strcmp(de->d_name, "accounting"))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Removes the perf.data files ("data", "data.*"), snapshot directories and
 * pid file a previous recording left. */
static int clear_old_data(int dirfd, const char *path, char *err, size_t errlen)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *de;
	int ret = 0;

	if (!d) {
		rt_format(err, errlen, "%s: cannot list: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		int r;

		if (!strncmp(de->d_name, "snapshot-", 9))
			r = remove_snapshot_dir(dirfd, de->d_name);
		else if (is_data_file(de->d_name) || !strcmp(de->d_name, "ringtrace.pid"))
			r = unlinkat(dirfd, de->d_name, 0);
		else
			continue;
		if (r) {
			rt_format(err, errlen, "%s/%s: cannot remove: %s", path, de->d_name,
				  strerror(errno));
			ret = -1;
			break;
		}
	}
	closedir(d);
	return ret;
}

int output_dir_create(const char *path, bool force, char *err, size_t errlen)
{
	bool existed = false;
	struct stat st;
	int fd;

	if (mkdir(path, 0700)) {
		if (errno != EEXIST) {
			rt_format(err, errlen, "cannot create output directory %s: %s", path,
				  strerror(errno));
			return -1;
		}
		if (!force) {
			rt_format(err, errlen, "output directory %s already exists: remove it, choose another with -o, or pass --force",
				  path);
			return -1;
		}
		existed = true;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rt_format(err, errlen, "cannot open output directory %s: %s", path,
			  errno == ELOOP || errno == ENOTDIR ? "not a real directory (a symlink or a file)"
							     : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		rt_format(err, errlen, "output directory %s is not a directory owned by you: choose another with -o",
			  path);
		close(fd);
		return -1;
	}
	if (existed && clear_old_data(fd, path, err, errlen)) {
		close(fd);
		return -1;
	}
	return fd;
}

int output_subdir_create(int dirfd, const char *dirpath, const char *name, char *err,
			 size_t errlen)
{
	int fd;

	if (mkdirat(dirfd, name, 0700)) {
		rt_format(err, errlen, "cannot create %s/%s: %s", dirpath, name, strerror(errno));
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		rt_format(err, errlen, "cannot open %s/%s: %s", dirpath, name, strerror(errno));
	return fd;
}

int output_file_create(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		rt_format(err, errlen, "cannot create %s/%s: %s", dirpath, name, strerror(errno));
	return fd;
}
