/* SPDX-License-Identifier: GPL-2.0-only */
/* container_names.h: the Kubernetes names of the container a cgroup path
 * names, asked of its runtime by container id and kept in a bounded cache
 * (entries, time to live, negative entries), each question within a timeout
 * and a caller's budget of time, failures counted. Thread-safe. */
#ifndef RINGTRACE_CONTAINER_NAMES_H
#define RINGTRACE_CONTAINER_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "sys/runtime_client.h"

#define CONTAINERD_DEFAULT_SOCKET "/run/containerd/containerd.sock"
#define CRIO_DEFAULT_SOCKET "/var/run/crio/crio.sock"
#define DOCKER_DEFAULT_SOCKET "/var/run/docker.sock"

/* Containers remembered at once (each entry ~480 bytes: ~2 MiB in all). */
#define CONTAINER_NAMES_MAX_ENTRIES 4096
/* One question to a runtime takes at most this long. */
#define CONTAINER_NAMES_TIMEOUT_MS 200
/* How long an answer is kept: names (a container's labels never change),
 * "no such container", and a failure (the runtime down or slow). */
#define CONTAINER_NAMES_TTL_S 600
#define CONTAINER_NAMES_NEGATIVE_TTL_S 30
#define CONTAINER_NAMES_FAILURE_TTL_S 5

/* The sockets asked, by enum runtime_kind; NULL: that runtime is not asked. */
struct container_runtime_sockets {
	const char *path[RUNTIME_KINDS];
};

/* What the cache did, since it was created. */
struct container_names_counts {
	uint64_t hits, misses;   /* lookups answered from the cache, or not */
	uint64_t asked[RUNTIME_KINDS];     /* questions sent to each runtime */
	uint64_t found[RUNTIME_KINDS];     /* ... answered with the container */
	uint64_t not_found[RUNTIME_KINDS]; /* ... that runtime has no such container */
	uint64_t failed[RUNTIME_KINDS];    /* ... no answer: timeout, refused, bad answer */
	uint64_t skipped;        /* misses past the caller's budget: not asked */
	uint64_t evictions;      /* entries dropped to make room */
	uint64_t entries;        /* held now */
};

struct container_names;

/* NULL if memory ran out. The paths are copied. */
struct container_names *container_names_create(const struct container_runtime_sockets *sockets);
void container_names_free(struct container_names *cn);
/* The names of the container the cgroup path names (sys/container_labels.h),
 * into out: from the cache, or asked of its runtime (each that may hold it,
 * where the path does not say) while *budget_ns lasts: the time the
 * questions take is taken from it (one caller's lookups share it, however
 * long the caller's own work between them). true if a runtime named it. cn
 * may be NULL: false. */
bool container_names_of_cgroup(struct container_names *cn, const char *cgroup,
			       uint64_t *budget_ns, struct kube_names *out);
void container_names_counts(struct container_names *cn, struct container_names_counts *out);

#endif
