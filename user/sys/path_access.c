/* SPDX-License-Identifier: GPL-2.0-only */
/* path_access.c: which directory or file of a path keeps this process out
 * (the first it may not enter, or the last it may not read), whose it is,
 * and who is kept out. */
#include "sys/path_access.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void path_access_describe(const char *path, char *out, size_t len)
{
	struct stat st;
	struct passwd *pw;
	struct group *gr;
	char owner[32], group[32];
	int saved = errno;

	if (stat(path, &st)) {
		snprintf(out, len, "%s", path);
		errno = saved;
		return;
	}
	pw = getpwuid(st.st_uid);
	gr = getgrgid(st.st_gid);
	snprintf(owner, sizeof(owner), "%u", (unsigned int)st.st_uid);
	snprintf(group, sizeof(group), "%u", (unsigned int)st.st_gid);
	snprintf(out, len, "%s (mode %04o, owner %s, group %s)", path,
		 (unsigned int)(st.st_mode & 07777), pw ? pw->pw_name : owner,
		 gr ? gr->gr_name : group);
	errno = saved;
}

void path_access_who(char *out, size_t len)
{
	int saved = errno;
	struct passwd *pw = getpwuid(geteuid());

	if (pw)
		snprintf(out, len, "user %s", pw->pw_name);
	else
		snprintf(out, len, "uid %u", (unsigned int)geteuid());
	errno = saved;
}

int path_access_denied_at(const char *path, int want_dir, char *at, size_t len)
{
	char part[PATH_MAX], absolute[PATH_MAX], cwd[PATH_MAX];
	size_t n;
	int saved = errno, r = -ENOENT;

	/* relative: from the working directory, walked from / as well */
	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)) ||
		    snprintf(absolute, sizeof(absolute), "%s/%s", strcmp(cwd, "/") ? cwd : "",
			     path) >= (int)sizeof(absolute)) {
			errno = saved;
			return -ENOENT;
		}
		path = absolute;
	}
	n = strlen(path);
	if (n >= sizeof(part)) {
		errno = saved;
		return -ENOENT;
	}
	for (size_t i = 1; i <= n; i++) {
		bool last = i == n;

		if (!last && path[i] != '/')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		/* a directory on the way is entered; the last part read (a
		 * directory listed and entered) */
		if (faccessat(AT_FDCWD, part, last ? (want_dir ? R_OK | X_OK : R_OK) : X_OK,
			      AT_EACCESS) &&
		    (errno == EACCES || errno == EPERM)) {
			snprintf(at, len, "%s", part);
			r = 0;
			break;
		}
	}
	errno = saved; /* as the caller's failure left it */
	return r;
}

void path_access_keeps_out(const char *path, int want_dir, char *out, size_t len)
{
	char at[PATH_MAX], described[PATH_MAX + 96], who[64];

	if (path_access_denied_at(path, want_dir, at, sizeof(at)))
		snprintf(at, sizeof(at), "%s", path); /* refused, by what it does not say */
	path_access_describe(at, described, sizeof(described));
	path_access_who(who, sizeof(who));
	snprintf(out, len, "%s keeps %s out", described, who);
}
