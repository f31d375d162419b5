/* SPDX-License-Identifier: GPL-2.0-only */
/* cgroup.h: cgroup v2 directories: the mount point, a user's -G path resolved
 * and checked, ids as the kernel reports them, and the tree walked. */
#ifndef RINGTRACE_CGROUP_H
#define RINGTRACE_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hash_map.h"

struct cgroup_dir {
	char path[PATH_MAX];     /* absolute path in the file system */
	char relative[PATH_MAX]; /* path from the cgroup v2 root, "/" for the root */
	uint64_t id;             /* the kernel's cgroup id (bpf_get_current_cgroup_id) */
	int fd;                  /* O_RDONLY directory, for BPF's cgroup array */
};

/* The cgroup v2 mount point from /proc/self/mountinfo, or NULL. */
const char *cgroup2_mount(void);

/* Resolves -G PATH (absolute, or relative to the cgroup v2 mount). 0, or -errno
 * with one line in err: missing path, a cgroup v1 directory, not a cgroup. */
int cgroup_resolve(const char *spec, struct cgroup_dir *out, char *err, size_t errlen);
void cgroup_close(struct cgroup_dir *c);

/* The cgroup id of a cgroup v2 directory; 0, or -errno. */
int cgroup_id_of(const char *path, uint64_t *id);

/* Calls fn for the root and every directory below it (id and relative path);
 * 0, or -errno (-ENOENT: no cgroup v2 mount). */
int cgroup_walk(void (*fn)(uint64_t id, const char *relative, void *ctx), void *ctx);

/* Names of cgroup ids as paths from the cgroup v2 root, from walks of the
 * tree: one at init, another when an id not seen yet is asked for; and since
 * when a cgroup is gone. */
struct cgroup_names {
	struct hash_map map;    /* id -> path */
	struct hash_map gone;   /* id -> when it was first found gone */
	bool walked;            /* walked again since cgroup_names_rescan_allowed */
};

void cgroup_names_init(struct cgroup_names *n);
/* Allows one more walk for the next unknown id (call once per report). */
void cgroup_names_rescan_allowed(struct cgroup_names *n);
/* The path of id, or "unknown_cgroup_id:N" written into buf. */
const char *cgroup_names_get(struct cgroup_names *n, uint64_t id, char *buf, size_t len);
/* Names the ids not named yet by one more walk of the tree, now: a cgroup
 * seen for the first time is named while it still exists. */
void cgroup_names_learn(struct cgroup_names *n, const uint64_t *ids, size_t nr);
/* Whether the cgroup of id has been gone (its path no longer is that cgroup,
 * or it never had one) for at least grace_ms at now_ms (any clock, the same
 * every call). A cgroup found again is no longer gone. */
bool cgroup_names_gone_for(struct cgroup_names *n, uint64_t id, uint64_t now_ms,
			   uint64_t grace_ms);
/* Drops what is known of id. */
void cgroup_names_forget(struct cgroup_names *n, uint64_t id);
void cgroup_names_free(struct cgroup_names *n);

#endif
