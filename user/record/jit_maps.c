/* SPDX-License-Identifier: GPL-2.0-only */
/* jit_maps.c: copies into the recording (DIR/perf-PID.map) the symbol maps
 * JITs write for their code (/tmp/perf-PID.map, perf's format). */
#include "record/jit_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "sys/proc_ns.h"
#include "sys/safe_open.h"

struct jit_process {
	uint32_t pid;
	uint32_t nspid;  /* its pid in its own namespace: its map's name */
	uid_t uid;       /* whose its map must be */
	bool same_mnt_ns; /* /tmp is ours: the map is readable after it exits */
};

void jit_maps_init(struct jit_maps *j, int dirfd, struct file_copies *copies)
{
	memset(j, 0, sizeof(*j));
	j->dirfd = dirfd;
	j->copies = copies;
	hash_map_init(&j->pids, hash_u32_key, equal_u32_key);
	proc_mnt_ns(0, &j->own_mnt_ns);
}

/* Its user, its pid in its own namespace and whether it shares our /tmp, from
 * /proc while it runs. */
static int describe(struct jit_maps *j, struct jit_process *p)
{
	char path[64], buf[4096];
	struct stat st;
	const char *line;
	uint64_t mnt_ns;

	snprintf(path, sizeof(path), "/proc/%u", p->pid);
	if (stat(path, &st))
		return -1;
	p->uid = st.st_uid;
	p->nspid = p->pid;
	snprintf(path, sizeof(path), "/proc/%u/status", p->pid);
	if (safe_read_file(AT_FDCWD, path, buf, sizeof(buf)) > 0 &&
	    (line = strstr(buf, "\nNSpid:"))) {
		const char *last = NULL, *q = line + 7;

		/* the last of the pids is the one of its innermost namespace */
		while (*q && *q != '\n') {
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q >= '0' && *q <= '9')
				last = q;
			while (*q && *q != '\n' && *q != ' ' && *q != '\t')
				q++;
		}
		if (last)
			p->nspid = (uint32_t)strtoul(last, NULL, 10);
	}
	/* its mount namespace, when we may still look (a process with
	 * capabilities we dropped hides it): else one in our pid namespace is
	 * taken to share our /tmp */
	p->same_mnt_ns = !proc_mnt_ns(p->pid, &mnt_ns) ? mnt_ns == j->own_mnt_ns
						       : p->nspid == p->pid;
	return 0;
}

static void note(struct jit_maps *j, uint32_t pid)
{
	struct jit_process *p;

	if (hash_map_get(&j->pids, &pid) || !(p = calloc(1, sizeof(*p))))
		return;
	p->pid = pid;
	if (describe(j, p) || hash_map_put(&j->pids, &p->pid, p))
		free(p);
}

void jit_maps_note_mmap(struct jit_maps *j, const struct perf_mmap *m)
{
	if ((m->prot & PROT_EXEC) && !strncmp(m->filename, "//anon", 6))
		note(j, m->pid);
}

void jit_maps_note_records(struct jit_maps *j, const void *recs, size_t len)
{
	const void *at = recs, *end = (const uint8_t *)recs + len;
	struct perf_mmap m;

	while (perf_next_mmap2(&at, end, RECORDING_SAMPLE_ID_TYPE, &m))
		jit_maps_note_mmap(j, &m);
}

/* The map as the process sees it: in its root while it lives, else ours if
 * it shared it. -errno if neither opened, *refused set if one was there but
 * safe_open refused it (a FIFO, a symlink, a directory), not merely missing. */
static int open_map(const struct jit_process *p, struct stat *st, bool *refused)
{
	char path[64];
	int rootfd, fd = -ENOENT;

	*refused = false;
	snprintf(path, sizeof(path), "/proc/%u/root", p->pid);
	rootfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0) {
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->nspid);
		fd = safe_open_in_root(rootfd, path, st);
		close(rootfd);
		*refused = fd < 0 && safe_open_refused(-fd);
	}
	if (fd < 0 && p->same_mnt_ns) {
		snprintf(path, sizeof(path), "/tmp/perf-%u.map", p->pid);
		fd = safe_openat(AT_FDCWD, path, 0, st);
		*refused |= fd < 0 && safe_open_refused(-fd);
	}
	return fd;
}

/* Queues a copy of p's map, if it is one the process's user owns; counts one
 * refused (not a regular file, another user's, too large) in the copies'
 * totals. A map that is not there is none to copy. */
static void copy_map(struct jit_maps *j, const struct jit_process *p)
{
	char name[64];
	struct stat st;
	bool refused;
	int in = open_map(p, &st, &refused);

	if (in < 0) {
		if (refused)
			file_copies_refused(j->copies, false);
		return;
	}
	if (st.st_uid != p->uid || st.st_size > JIT_MAP_MAX_BYTES) {
		file_copies_refused(j->copies, st.st_uid == p->uid);
		close(in);
		return;
	}
	snprintf(name, sizeof(name), "perf-%u.map", p->pid);
	file_copies_submit(j->copies, in, name, true);
}

void jit_maps_copy(struct jit_maps *j, uint32_t pid)
{
	struct jit_process *p = hash_map_remove(&j->pids, &pid);

	/* once, as it exits: not again at the end */
	if (p)
		copy_map(j, p);
	free(p);
}

static void copy_one(void *value, void *ctx)
{
	copy_map(ctx, value);
}

void jit_maps_copy_all(struct jit_maps *j)
{
	hash_map_each(&j->pids, copy_one, j);
}

void jit_maps_free(struct jit_maps *j)
{
	hash_map_free_all(&j->pids);
}
