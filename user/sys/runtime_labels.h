/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_labels.h: a container's Kubernetes names (namespace, pod, container,
 * pod uid) read from the labels kubelet sets on every container, as each
 * runtime answers them: Docker's and CRI-O's JSON, containerd's protobuf. */
#ifndef RINGTRACE_RUNTIME_LABELS_H
#define RINGTRACE_RUNTIME_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The labels kubelet sets (pkg/kubelet/types/labels.go). */
#define KUBE_LABEL_POD_NAME "io.kubernetes.pod.name"
#define KUBE_LABEL_POD_NAMESPACE "io.kubernetes.pod.namespace"
#define KUBE_LABEL_POD_UID "io.kubernetes.pod.uid"
#define KUBE_LABEL_CONTAINER_NAME "io.kubernetes.container.name"

/* Each "" when the runtime did not say it, or said what Kubernetes never
 * names a thing (too long, or a byte outside its names' characters). */
struct kube_names {
	char namespace_[64]; /* a DNS label: 63 bytes at most */
	char pod[254];       /* a DNS subdomain: 253 */
	char container[64];  /* a DNS label */
	char pod_uid[37];    /* 8-4-4-4-12 */
};

/* Whether n holds any name. */
bool kube_names_any(const struct kube_names *n);
/* Keeps value in n if key is one of kubelet's labels and value fits it. */
void kube_names_set(struct kube_names *n, const char *key, const char *value);
/* Docker Engine's GET /containers/ID/json: Config.Labels. 0, or -EINVAL
 * (not JSON, or not an object where one belongs). */
int kube_names_from_docker(const char *json, size_t len, struct kube_names *out);
/* CRI-O's GET /containers/ID (its ContainerInfo): labels. 0, or -EINVAL. */
int kube_names_from_crio(const char *json, size_t len, struct kube_names *out);
/* containerd's GetContainerResponse (protobuf): container.labels. 0, or -EINVAL. */
int kube_names_from_containerd(const uint8_t *pb, size_t len, struct kube_names *out);
/* A GetContainerRequest for id, protobuf-encoded into out (room for at least
 * id's length and 8): its length, or -E2BIG. */
int containerd_get_request(const char *id, uint8_t *out, size_t room);

#endif
