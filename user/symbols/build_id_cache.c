/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id_cache.c: copies, inside the recording (DIR/.build-id/xx/yyyy), of
 * the binaries only a container sees (a process in another mount namespace),
 * taken through /proc/PID/root at record time, so that report resolves their
 * symbols after the container is gone. */
#include "symbols/build_id_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/build_id.h"

struct seen_id {
	char name[48]; /* xx/yyyy: the key */
};

void build_id_cache_init(struct build_id_cache *c, int dirfd)
{
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->dirfd = dirfd;
	hash_map_init(&c->seen, hash_string, equal_string);
	n = readlink("/proc/self/ns/mnt", c->own_mnt_ns, sizeof(c->own_mnt_ns) - 1);
	c->own_mnt_ns[n > 0 ? n : 0] = '\0';
}

static bool foreign_namespace(const struct build_id_cache *c, uint32_t pid)
{
	char path[64], ns[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	n = readlink(path, ns, sizeof(ns) - 1);
	if (n <= 0 || !c->own_mnt_ns[0])
		return false;
	ns[n] = '\0';
	return strcmp(ns, c->own_mnt_ns) != 0;
}

/* Copies src (open) to DIR/.build-id/name, created 0600 and exclusively. */
static int copy_in(struct build_id_cache *c, int src, const char *name)
{
	char dir[64], tmp[96];
	struct stat st;
	int out, ret = -1;
	off_t off = 0;

	if (fstat(src, &st) || !S_ISREG(st.st_mode))
		return -1;
	mkdirat(c->dirfd, BUILD_ID_CACHE_DIR, 0700);
	snprintf(dir, sizeof(dir), "%s/%.2s", BUILD_ID_CACHE_DIR, name);
	mkdirat(c->dirfd, dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s/%s", BUILD_ID_CACHE_DIR, name);
	out = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		return errno == EEXIST ? 0 : -1;
	while (off < st.st_size) {
		ssize_t n = sendfile(out, src, &off, (size_t)(st.st_size - off));

		if (n <= 0)
			break;
	}
	if (off == st.st_size)
		ret = 0;
	if (close(out) || ret)
		unlinkat(c->dirfd, tmp, 0);
	return ret;
}

void build_id_cache_add(struct build_id_cache *c, uint32_t pid, const char *path,
			const uint8_t *build_id, size_t len)
{
	struct seen_id *s;
	char src[4096 + 32];
	int fd;

	if (!len || path[0] != '/')
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return;
	build_id_path(s->name, sizeof(s->name), NULL, build_id, len, "");
	if (hash_map_get(&c->seen, s->name)) {
		free(s);
		return;
	}
	if (hash_map_put(&c->seen, s->name, s)) {
		free(s);
		return;
	}
	if (!foreign_namespace(c, pid))
		return;
	snprintf(src, sizeof(src), "/proc/%u/root%s", pid, path);
	fd = open(src, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!copy_in(c, fd, s->name))
		c->copied++;
	else
		rt_warn("cannot keep a copy of %s (pid %u's mount namespace): its symbols may show as [unknown]",
			path, pid);
	close(fd);
}

static void free_seen(void *value, void *ctx)
{
	(void)ctx;
	free(value);
}

void build_id_cache_free(struct build_id_cache *c)
{
	hash_map_each(&c->seen, free_seen, NULL);
	hash_map_free(&c->seen);
}
