/* SPDX-License-Identifier: GPL-2.0-only */
/* container_labels.h: what a cgroup path says of the container in it: its
 * runtime, container id, and for a Kubernetes pod its uid and QoS class, as
 * kubelet's systemd and cgroupfs drivers, containerd, CRI-O, Docker and
 * Podman name their cgroups. */
#ifndef RINGTRACE_CONTAINER_LABELS_H
#define RINGTRACE_CONTAINER_LABELS_H

#include <stdbool.h>

/* The fewest leading hex digits that name a container (docker's short ids). */
#define CONTAINER_ID_PREFIX_MIN 12

struct container_labels {
	const char *runtime;   /* "containerd", "cri-o", "docker", "podman", or NULL */
	char container_id[65]; /* 64 hex digits, or "" */
	char pod_uid[37];      /* 8-4-4-4-12, or "" */
	const char *qos_class; /* "guaranteed", "burstable", "besteffort", or NULL */
};

/* Reads path (from the cgroup v2 root, as "/kubepods.slice/..."): the
 * innermost container's cgroup and the pod around it. true if it named a
 * container or a pod (what it did not name is left empty). */
bool container_labels_of(const char *path, struct container_labels *out);

#endif
