/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup.c: cgroup v2 directories: the mount point, a user's -G path resolved
 * and checked, ids as the kernel reports them, and the tree walked. */
#include "sys/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/path_access.h"

#define CGROUP2_MAGIC 0x63677270
#define CGROUP1_MAGIC 0x27e0eb

static char mount_point[PATH_MAX];

const char *cgroup2_mount(void)
{
	FILE *f;
	char line[4096];

	if (mount_point[0])
		return mount_point;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX], fstype[64];
		const char *sep = strstr(line, " - ");

		/* id parent major:minor root mount-point options ... - fstype source */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		snprintf(mount_point, sizeof(mount_point), "%s", mnt);
		break;
	}
	fclose(f);
	return mount_point[0] ? mount_point : NULL;
}

int cgroup_id_of(const char *path, uint64_t *id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} handle = { .fh.handle_bytes = sizeof(uint64_t) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &handle.fh, &mount_id, 0))
		return errno ? -errno : -EIO;
	memcpy(id, handle.fh.f_handle, sizeof(*id));
	return 0;
}

/* -G's cgroup at path, which this process may not reach or read: the part
 * of its path that keeps it out, whose it is, and the fixes. */
static void cgroup_denied(const char *path, char *err, size_t errlen)
{
	char cause[PATH_MAX + 192];

	path_access_keeps_out(path, true, cause, sizeof(cause));
	rt_format(err, errlen,
		  "cannot read cgroup %s: %s: run as root, or let the user into that directory (chgrp it to a group of theirs and chmod g+rx it, or chmod o+rx it)",
		  path, cause);
}

int cgroup_resolve(const char *spec, struct cgroup_dir *out, char *err, size_t errlen)
{
	const char *root = cgroup2_mount();
	char joined[PATH_MAX];
	struct statfs st;
	size_t root_len;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (!root) {
		rt_format(err, errlen, "no cgroup v2 hierarchy is mounted: ringtrace filters by cgroup v2 (mount -t cgroup2 none /sys/fs/cgroup)");
		return -ENOENT;
	}
	if (spec[0] == '/')
		snprintf(joined, sizeof(joined), "%s", spec);
	else
		snprintf(joined, sizeof(joined), "%s/%s", root, spec);
	if (!realpath(joined, out->path)) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			cgroup_denied(joined, err, errlen);
		else
			rt_format(err, errlen, "cgroup %s not found: give a directory under %s (cgroup v2), absolute or relative to it",
				  joined, root);
		return -e;
	}
	if (statfs(out->path, &st)) {
		rt_format(err, errlen, "cgroup %s: %s", out->path, strerror(errno));
		return -errno;
	}
	if (st.f_type == CGROUP1_MAGIC) {
		rt_format(err, errlen, "%s is a cgroup v1 directory: ringtrace scopes by cgroup v2; use the same group under %s",
			  out->path, root);
		return -EINVAL;
	}
	root_len = strlen(root);
	if (st.f_type != CGROUP2_MAGIC || strncmp(out->path, root, root_len) ||
	    (out->path[root_len] && out->path[root_len] != '/')) {
		rt_format(err, errlen, "%s is not a cgroup v2 directory: give one under %s", out->path,
			  root);
		return -EINVAL;
	}
	snprintf(out->relative, sizeof(out->relative), "%s",
		 out->path[root_len] ? out->path + root_len : "/");
	if (cgroup_id_of(out->path, &out->id)) {
		rt_format(err, errlen, "cannot read the id of cgroup %s: %s", out->path, strerror(errno));
		return -errno;
	}
	out->fd = open(out->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (out->fd < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			cgroup_denied(out->path, err, errlen);
		else
			rt_format(err, errlen, "cannot open cgroup %s: %s", out->path, strerror(e));
		return -e;
	}
	return 0;
}

void cgroup_close(struct cgroup_dir *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void (*walk_fn)(uint64_t id, const char *relative, void *ctx);
static void *walk_ctx;
static size_t walk_root_len;

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	uint64_t id;

	(void)st;
	(void)ftw;
	if (type != FTW_D || cgroup_id_of(path, &id))
		return 0;
	walk_fn(id, path[walk_root_len] ? path + walk_root_len : "/", walk_ctx);
	return 0;
}

int cgroup_walk(void (*fn)(uint64_t id, const char *relative, void *ctx), void *ctx)
{
	const char *root = cgroup2_mount();

	if (!root)
		return -ENOENT;
	walk_fn = fn;
	walk_ctx = ctx;
	walk_root_len = strlen(root);
	return nftw(root, visit, 32, FTW_PHYS | FTW_MOUNT) ? -errno : 0;
}

struct cgroup_name {
	uint64_t id;
	char *path;
};

static void add_cgroup_name(uint64_t id, const char *relative, void *ctx)
{
	struct cgroup_names *names = ctx;
	struct cgroup_name *n;

	if (hash_map_get(&names->map, &id) || !(n = calloc(1, sizeof(*n))))
		return;
	n->id = id;
	n->path = strdup(relative);
	if (!n->path || hash_map_put(&names->map, &n->id, n)) {
		free(n->path);
		free(n);
	}
}

void cgroup_names_init(struct cgroup_names *n)
{
	hash_map_init(&n->map, hash_u64_key, equal_u64_key);
	hash_map_init(&n->gone, hash_u64_key, equal_u64_key);
	n->walked = true;
	cgroup_walk(add_cgroup_name, n);
}

void cgroup_names_rescan_allowed(struct cgroup_names *n)
{
	n->walked = false;
}

const char *cgroup_names_get(struct cgroup_names *n, uint64_t id, char *buf, size_t len)
{
	struct cgroup_name *name = hash_map_get(&n->map, &id);

	if (!name && !n->walked) {
		/* a cgroup created since the last walk */
		n->walked = true;
		cgroup_walk(add_cgroup_name, n);
		name = hash_map_get(&n->map, &id);
	}
	if (name)
		return name->path;
	snprintf(buf, len, "unknown_cgroup_id:%llu", (unsigned long long)id);
	return buf;
}

void cgroup_names_learn(struct cgroup_names *n, const uint64_t *ids, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (!hash_map_get(&n->map, &ids[i])) {
			cgroup_walk(add_cgroup_name, n);
			return;
		}
	}
}

/* Whether the path named for id is still that cgroup. */
static bool still_there(const struct cgroup_name *name)
{
	const char *root = cgroup2_mount();
	char path[PATH_MAX];
	uint64_t id;

	if (!root || (size_t)snprintf(path, sizeof(path), "%s%s", root,
				      strcmp(name->path, "/") ? name->path : "") >= sizeof(path))
		return false;
	return !cgroup_id_of(path, &id) && id == name->id;
}

/* When a cgroup was first found gone. */
struct cgroup_gone {
	uint64_t id;
	uint64_t since_ms;
};

bool cgroup_names_gone_for(struct cgroup_names *n, uint64_t id, uint64_t now_ms,
			   uint64_t grace_ms)
{
	struct cgroup_name *name = hash_map_get(&n->map, &id);
	struct cgroup_gone *g = hash_map_get(&n->gone, &id);

	if (name && still_there(name)) {
		free(hash_map_remove(&n->gone, &id));
		return false;
	}
	if (!g) {
		g = malloc(sizeof(*g));
		if (!g)
			return false;
		g->id = id;
		g->since_ms = now_ms;
		if (hash_map_put(&n->gone, &g->id, g)) {
			free(g);
			return false;
		}
	}
	return now_ms - g->since_ms >= grace_ms;
}

void cgroup_names_forget(struct cgroup_names *n, uint64_t id)
{
	struct cgroup_name *name = hash_map_remove(&n->map, &id);

	if (name) {
		free(name->path);
		free(name);
	}
	free(hash_map_remove(&n->gone, &id));
}

static void free_cgroup_name(void *value, void *ctx)
{
	struct cgroup_name *n = value;

	(void)ctx;
	free(n->path);
	free(n);
}

void cgroup_names_free(struct cgroup_names *n)
{
	hash_map_each(&n->map, free_cgroup_name, NULL);
	hash_map_free(&n->map);
	hash_map_free_all(&n->gone);
}
