/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id_cache.c: copies, inside the recording (DIR/.build-id/xx/yyyy), of
 * the binaries only a container sees (a process in another mount namespace),
 * taken at record time through the mapped inode (/proc/PID/map_files) or the
 * container's root, and only if it carries the build-id recorded. */
#include "symbols/build_id_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "symbols/build_id.h"
#include "sys/safe_open.h"

/* Larger files are not copied: a sparse file would fill the disk. */
#define BUILD_ID_CACHE_MAX_FILE ((off_t)1 << 30)

struct seen_id {
	char name[48]; /* xx/yyyy: the key */
};

void build_id_cache_init(struct build_id_cache *c, int dirfd, struct file_copies *copies)
{
	ssize_t n;

	memset(c, 0, sizeof(*c));
	c->dirfd = dirfd;
	c->copies = copies;
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

/* Queues a copy of src (open, a regular file checked to carry the build-id
 * name stands for) to DIR/.build-id/name, made 0600 where there is none. */
static int copy_in(struct build_id_cache *c, int src, const char *name)
{
	char dir[64], path[96];
	struct stat st;
	int fd;

	if (fstat(src, &st))
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -1;
	}
	if (st.st_size > BUILD_ID_CACHE_MAX_FILE) {
		errno = EFBIG;
		return -1;
	}
	mkdirat(c->dirfd, BUILD_ID_CACHE_DIR, 0700);
	snprintf(dir, sizeof(dir), "%s/%.2s", BUILD_ID_CACHE_DIR, name);
	mkdirat(c->dirfd, dir, 0700);
	snprintf(path, sizeof(path), "%s/%s", BUILD_ID_CACHE_DIR, name);
	fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (file_copies_submit(c->copies, fd, path, false)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Whether a file may be kept under the build-id it carries: a copy named by
 * a build-id stands for every binary with that build-id (report names the
 * frames of a host binary replaced since by it), so only a file root owns and
 * no one else may write, which no local user can have forged (the unwind
 * cache's rule). A container of an unprivileged user (its root a user's uid)
 * gets no copy. */
static bool trusted(int fd, uid_t *owner)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	*owner = st.st_uid;
	return st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether the build-id is new (it is then remembered as handled). */
static bool first_time(struct build_id_cache *c, const char *name)
{
	struct seen_id *s;

	if (hash_map_get(&c->seen, name))
		return false;
	s = calloc(1, sizeof(*s));
	if (!s)
		return false;
	snprintf(s->name, sizeof(s->name), "%s", name);
	if (hash_map_put(&c->seen, s->name, s)) {
		free(s);
		return false;
	}
	return true;
}

void build_id_cache_add(struct build_id_cache *c, const struct perf_mmap *m, int fd)
{
	char name[48];
	bool own = fd < 0;
	uid_t owner = 0;

	if (!m->build_id_size || m->filename[0] != '/')
		return;
	build_id_path(name, sizeof(name), NULL, m->build_id, m->build_id_size, "");
	if (!first_time(c, name) || !foreign_namespace(c, m->pid))
		return;
	/* the mapped inode itself, or the path inside the container's root
	 * without following any link: never a file outside that root */
	if (own)
		fd = safe_open_mapping(m->pid, m->start, m->start + m->len, m->filename, NULL, NULL);
	if (fd < 0) {
		/* a planted file is said; a process gone meanwhile, or one not
		 * ours to read, is not */
		if (safe_open_refused(errno))
			rt_warn("not keeping a copy of %s (pid %u's mount namespace): it is %s, not the file mapped; its symbols may show as [unknown]",
				m->filename, m->pid, safe_open_strerror(errno));
		return;
	}
	if (!build_id_matches(fd, m->build_id, m->build_id_size))
		rt_warn("not keeping a copy of %s (pid %u's mount namespace): its build-id is not the one mapped (replaced since); its symbols may show as [unknown]",
			m->filename, m->pid);
	else if (!trusted(fd, &owner))
		rt_warn("not keeping a copy of %s (pid %u's mount namespace): it is owned by uid %u or writable by others, and could claim another binary's build-id (report would name that binary's frames by it); its symbols may show as [unknown]",
			m->filename, m->pid, (unsigned int)owner);
	else if (copy_in(c, fd, name))
		rt_warn("cannot keep a copy of %s (pid %u's mount namespace): %s; its symbols may show as [unknown]",
			m->filename, m->pid, strerror(errno));
	if (own)
		close(fd);
}

void build_id_cache_free(struct build_id_cache *c)
{
	hash_map_free_all(&c->seen);
}
