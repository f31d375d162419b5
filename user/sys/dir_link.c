/* SPDX-License-Identifier: GPL-2.0-only */
/* dir_link.c: a directory's tree of files made visible in another directory
 * of the same file system by hard links, directories made on the way. */
#include "sys/dir_link.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/dir_entries.h"

struct link_walk {
	int to;
	unsigned int depth;
	struct dir_link_totals *t;
};

static int link_tree(int from, int to, unsigned int depth, struct dir_link_totals *t);

static int link_entry(int from, const char *name, void *ctx)
{
	struct link_walk *w = ctx;
	size_t len = strlen(name);
	struct stat st;
	int sub_from, sub_to;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0; /* removed meanwhile */
	if (S_ISREG(st.st_mode)) {
		if (len > 4 && !strcmp(name + len - 4, ".tmp"))
			return 0;
		if (linkat(from, name, w->to, name, 0) && errno != EEXIST)
			w->t->failed++;
		else
			w->t->linked++;
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || w->depth >= DIR_LINK_MAX_DEPTH)
		return 0;
	if (mkdirat(w->to, name, 0700) && errno != EEXIST)
		return 0;
	sub_from = openat(from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	sub_to = openat(w->to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub_from >= 0 && sub_to >= 0)
		link_tree(sub_from, sub_to, w->depth + 1, w->t);
	if (sub_from >= 0)
		close(sub_from);
	if (sub_to >= 0)
		close(sub_to);
	return 0;
}

static int link_tree(int from, int to, unsigned int depth, struct dir_link_totals *t)
{
	struct link_walk w = { to, depth, t };
	int r = dir_each_entry(from, link_entry, &w);

	return r < 0 ? r : 0;
}

int dir_link_tree(int from, int to, struct dir_link_totals *t)
{
	return link_tree(from, to, 0, t);
}
