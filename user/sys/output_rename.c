/* SPDX-License-Identifier: GPL-2.0-only */
/* output_rename.c: an output directory named in its parent, or made there,
 * never over nor through another's entry: a name taken is tried again. */
#include "sys/output_rename.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"

/* 16 hex digits no one can guess, or -errno. */
static int random_hex(char out[17])
{
	uint64_t v;
	ssize_t n;

	do
		n = getrandom(&v, sizeof(v), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EIO;
	snprintf(out, 17, "%016llx", (unsigned long long)v);
	return 0;
}

/* The try-th name for name in out: 0, name itself; then name.1 to
 * name.numbered; then name, random_sep and random hex digits. 0, -ENOENT
 * after the last, or -errno. */
static int nth_name(const char *name, unsigned int try, unsigned int numbered,
		    const char *random_sep, char *out, size_t outlen)
{
	char hex[17];
	int n, r;

	if (!try) {
		n = snprintf(out, outlen, "%s", name);
	} else if (try <= numbered) {
		n = snprintf(out, outlen, "%s.%u", name, try);
	} else if (try <= numbered + OUTPUT_NAME_RANDOM_TRIES) {
		if ((r = random_hex(hex)))
			return r;
		n = snprintf(out, outlen, "%s%s%s", name, random_sep, hex);
	} else {
		return -ENOENT;
	}
	return n < 0 || (size_t)n >= outlen ? -ENAMETOOLONG : 0;
}

/* Whether parentfd/name is the file fd is open on (not through a symlink). */
static bool same_entry(int parentfd, const char *name, int fd)
{
	struct stat at, of;

	return !fstatat(parentfd, name, &at, AT_SYMLINK_NOFOLLOW) && !fstat(fd, &of) &&
	       at.st_dev == of.st_dev && at.st_ino == of.st_ino;
}

int output_rename_unique(int parentfd, const char *parentpath, const char *from, int fromfd,
			 const char *name, char *out, size_t outlen, unsigned int *taken,
			 char *err, size_t errlen)
{
	int r;

	if (fromfd >= 0 && !same_entry(parentfd, from, fromfd)) {
		rt_format(err, errlen, "%s%s is no longer this recording's output: left as it is",
			  parentpath, from);
		return -ESTALE;
	}
	for (unsigned int try = 0;; try++) {
		if ((r = nth_name(name, try, OUTPUT_NAME_NUMBERED, ".r", out, outlen))) {
			if (r == -ENOENT) {
				rt_format(err, errlen, "cannot rename %s%s to %s%s: the %u names tried are taken",
					  parentpath, from, parentpath, name, try);
				return -EEXIST;
			}
			rt_format(err, errlen, "cannot name %s%s: %s", parentpath, from, strerror(-r));
			return r;
		}
		if (!renameat2(parentfd, from, parentfd, out, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST) {
			rt_format(err, errlen, "cannot rename %s%s to %s%s: %s", parentpath, from,
				  parentpath, out, strerror(errno));
			return -errno;
		}
		(*taken)++;
	}
}

/* Opens parentfd/name, just made by mkdirat, and checks it is the caller's
 * directory (not a symlink, not another's put there since). */
static int open_own_dir(int parentfd, const char *parentpath, const char *name, char *err,
			size_t errlen)
{
	int fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0) {
		rt_format(err, errlen, "cannot open %s%s: %s", parentpath, name, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		rt_format(err, errlen, "%s%s is not the directory ringtrace made", parentpath, name);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int output_dir_create_unique(int parentfd, const char *parentpath, const char *name, char *out,
			     size_t outlen, unsigned int *taken, char *err, size_t errlen)
{
	int r;

	for (unsigned int try = 0;; try++) {
		/* name itself, then random names */
		if ((r = nth_name(name, try, 0, ".next.", out, outlen))) {
			if (r == -ENOENT) {
				rt_format(err, errlen, "cannot create %s%s: the %u names tried are taken",
					  parentpath, name, try);
				return -EEXIST;
			}
			rt_format(err, errlen, "cannot name a directory %s%s: %s", parentpath, name,
				  strerror(-r));
			return r;
		}
		if (!mkdirat(parentfd, out, 0700))
			return open_own_dir(parentfd, parentpath, out, err, errlen);
		if (errno != EEXIST) {
			rt_format(err, errlen, "cannot create %s%s: %s", parentpath, out, strerror(errno));
			return -errno;
		}
		(*taken)++;
	}
}
