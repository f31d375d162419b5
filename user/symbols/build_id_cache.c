/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id_cache.c: copies, inside the recording (DIR/.build-id/xx/yyyy), of
 * the binaries only a container sees (a process in another mount namespace),
 * taken at record time through the mapped inode (/proc/PID/map_files) or the
 * container's root, and only if it carries the build-id recorded; a file a
 * user owns is kept for its namespace alone (DIR/.build-id-ns/INODE/xx/yyyy). */
#include "symbols/build_id_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/monotonic.h"
#include "symbols/build_id.h"
#include "sys/proc_ns.h"
#include "sys/safe_open.h"

/* Larger files are not copied: a sparse file would fill the disk. */
#define BUILD_ID_CACHE_MAX_FILE ((off_t)1 << 30)

struct seen_id {
	char name[96]; /* DIR-relative path of the copy: the key */
};

/* The mount namespace a NAMESPACES record gave for a process. */
struct told_ns {
	uint32_t pid;
	uint64_t mnt_ns;
};
/* Processes remembered at most: past it, forgotten all at once (a second
 * NAMESPACES record for a process costs a few bytes, never a wrong frame). */
#define TOLD_MAX 65536

void build_id_cache_init(struct build_id_cache *c, int dirfd, struct file_copies *copies)
{
	memset(c, 0, sizeof(*c));
	c->dirfd = dirfd;
	c->copies = copies;
	hash_map_init(&c->seen, hash_string, equal_string);
	hash_map_init(&c->told, hash_u32_key, equal_u32_key);
	proc_mnt_ns(0, &c->own_mnt_ns);
	unlinked_copies_init(&c->unlinked, dirfd, copies);
}

/* The mount namespace of pid when it is not ours, else 0. */
static uint64_t foreign_namespace(struct build_id_cache *c, uint32_t pid)
{
	__typeof__(c->mnt_ns[0]) *slot = &c->mnt_ns[pid % MNT_NS_SLOTS];
	uint64_t ino, now;

	if (!c->own_mnt_ns)
		return 0;
	/* read at this process's mapping before, within MNT_NS_KEPT_NS, no
	 * FORK, EXIT or exec of its pid since (ld.so maps a program's
	 * libraries one after another, while the other CPUs' processes fork
	 * and exit) */
	now = monotonic_ns();
	if (pid && slot->pid == pid && slot->ino && now - slot->read_ns < MNT_NS_KEPT_NS) {
		ino = slot->ino;
	} else {
		if (proc_mnt_ns(pid, &ino))
			return 0;
		slot->pid = pid;
		slot->ino = ino;
		slot->read_ns = now;
	}
	return ino == c->own_mnt_ns ? 0 : ino;
}

void build_id_cache_task_changed(struct build_id_cache *c, uint32_t pid)
{
	__typeof__(c->mnt_ns[0]) *slot = &c->mnt_ns[pid % MNT_NS_SLOTS];

	if (slot->pid == pid)
		slot->pid = 0, slot->ino = 0;
}

/* Makes each directory of path (DIR-relative) but its last part, 0700. */
static void make_parents(int dirfd, const char *path)
{
	char dir[96];

	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		mkdirat(dirfd, dir, 0700);
	}
}

/* Queues a copy of src (open, a regular file checked to carry the build-id
 * path names it by, mapped by m) to DIR/path, made 0600 where there is none;
 * or holds it until a sample touches m's range. */
static int copy_in(struct build_id_cache *c, int src, const char *path, const struct perf_mmap *m)
{
	struct stat st;
	int fd;

	if (fstat(src, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -EINVAL;
	}
	if (st.st_size > BUILD_ID_CACHE_MAX_FILE) {
		errno = EFBIG;
		return -EFBIG;
	}
	make_parents(c->dirfd, path);
	fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (c->held) {
		held_copies_hold(c->held, fd, path, m->start, m->start + m->len);
		return 0;
	}
	if (file_copies_submit(c->copies, fd, path, false)) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	return 0;
}

/* Whether a file may be kept for every process: a copy named by a build-id
 * stands for every binary with that build-id (report names the frames of a
 * host binary replaced since by it), so only a file root owns and no one
 * else may write, which no local user can have forged (the unwind cache's
 * rule). One a user owns or may write (a rootless container's) is kept for
 * the processes of its mount namespace alone. */
static bool trusted(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether the copy at name is new (it is then remembered as handled). */
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

/* Whether the file m maps is at its path in our own root too, with the
 * build-id mapped (a container that shares the host's /usr, a pod's view of a
 * hostPath): report finds it there, and checks its build-id, without a copy. */
static bool found_here(const struct perf_mmap *m)
{
	int fd = safe_open_in_own_root(m->filename, NULL);
	bool same;

	if (fd < 0)
		return false;
	same = build_id_matches(fd, m->build_id, m->build_id_size);
	close(fd);
	return same;
}

void build_id_cache_add(struct build_id_cache *c, const struct perf_mmap *m, int fd)
{
	char name[48], shared[96], own_ns[96];
	uint64_t mnt_ns;
	bool own = fd < 0;

	if (!m->build_id_size || m->filename[0] != '/')
		return;
	if (!(mnt_ns = foreign_namespace(c, m->pid))) {
		unlinked_copies_note(&c->unlinked, m, fd);
		return;
	}
	build_id_path(name, sizeof(name), NULL, m->build_id, m->build_id_size, "");
	snprintf(shared, sizeof(shared), "%s/%s", BUILD_ID_CACHE_DIR, name);
	snprintf(own_ns, sizeof(own_ns), "%s/%llu/%s", BUILD_ID_NS_DIR,
		 (unsigned long long)mnt_ns, name);
	/* a file held for a sample to touch: every range it is mapped at */
	if (c->held && (held_copies_add_range(c->held, shared, m->start, m->start + m->len) ||
			held_copies_add_range(c->held, own_ns, m->start, m->start + m->len)))
		return;
	/* tried once per namespace, whatever came of it */
	if (hash_map_get(&c->seen, shared) || !first_time(c, own_ns))
		return;
	/* (tried once: a file seen here stays the host's) */
	if (found_here(m) && first_time(c, shared))
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
	if (!build_id_matches(fd, m->build_id, m->build_id_size)) {
		rt_warn("not keeping a copy of %s (pid %u's mount namespace): its build-id is not the one mapped (replaced since); its symbols may show as [unknown]",
			m->filename, m->pid);
	} else {
		const char *path = trusted(fd) ? shared : own_ns;

		if ((path == own_ns || first_time(c, path)) && copy_in(c, fd, path, m))
			rt_warn("cannot keep a copy of %s (pid %u's mount namespace): %s; its symbols may show as [unknown]",
				m->filename, m->pid, strerror(errno));
	}
	if (own)
		close(fd);
}

int build_id_cache_new_namespace(struct build_id_cache *c, const struct perf_mmap *m,
				 struct perf_namespaces *n)
{
	struct told_ns *t;
	uint64_t mnt_ns;

	if (!(m->prot & PROT_EXEC) || m->filename[0] != '/' ||
	    !(mnt_ns = foreign_namespace(c, m->pid)))
		return 0;
	t = hash_map_get(&c->told, &m->pid);
	if (t && t->mnt_ns == mnt_ns)
		return 0;
	memset(n, 0, sizeof(*n));
	n->pid = n->tid = m->pid;
	if (proc_namespaces(m->pid, n->ns) || n->ns[MNT_NS_INDEX].ino != mnt_ns)
		return 0; /* gone, or moved meanwhile: told at its next mapping */
	if (!t) {
		if (c->told.len >= TOLD_MAX)
			hash_map_free_all(&c->told);
		t = calloc(1, sizeof(*t));
		if (!t)
			return 0;
		t->pid = m->pid;
		if (hash_map_put(&c->told, &t->pid, t)) {
			free(t);
			return 0;
		}
	}
	t->mnt_ns = mnt_ns;
	return 1;
}

void build_id_cache_free(struct build_id_cache *c)
{
	hash_map_free_all(&c->seen);
	hash_map_free_all(&c->told);
	unlinked_copies_free(&c->unlinked);
	held_copies_free(c->held);
	c->held = NULL;
}
