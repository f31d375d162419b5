/* cgroup.h: cgroup v2 directories: the mount point, a user's -G path resolved
 * and checked, ids as the kernel reports them, and the tree walked. */
#ifndef RINGTRACE_CGROUP_H
#define RINGTRACE_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup_dir {
	char path[PATH_MAX];     /* absolute path in the file system */
	char relative[PATH_MAX]; /* path from the cgroup v2 root, "/" for the root */
	uint64_t id;             /* the kernel's cgroup id (bpf_get_current_cgroup_id) */
	int fd;                  /* O_RDONLY directory, for BPF's cgroup array */
};

/* The cgroup v2 mount point from /proc/self/mountinfo, or NULL. */
const char *cgroup2_mount(void);

/* Resolves -G PATH (absolute, or relative to the cgroup v2 mount). 0, or -1
 * with one line in err: missing path, a cgroup v1 directory, not a cgroup. */
int cgroup_resolve(const char *spec, struct cgroup_dir *out, char *err, size_t errlen);
void cgroup_close(struct cgroup_dir *c);

/* The cgroup id of a cgroup v2 directory. */
int cgroup_id_of(const char *path, uint64_t *id);

/* Calls fn for the root and every directory below it (id and relative path). */
int cgroup_walk(void (*fn)(uint64_t id, const char *relative, void *ctx), void *ctx);

#endif
