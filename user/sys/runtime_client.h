/* SPDX-License-Identifier: GPL-2.0-only */
/* runtime_client.h: one container's labels asked of its runtime on the
 * runtime's own unix socket, within a timeout: Docker Engine and CRI-O over
 * HTTP/1.1, containerd over gRPC (HTTP/2), all through libcurl, loaded when
 * first needed. */
#ifndef RINGTRACE_RUNTIME_CLIENT_H
#define RINGTRACE_RUNTIME_CLIENT_H

#include "sys/runtime_labels.h"

enum runtime_kind { RUNTIME_CONTAINERD, RUNTIME_CRIO, RUNTIME_DOCKER, RUNTIME_KINDS };

/* containerd keeps kubelet's containers in this namespace of its own. */
#define CONTAINERD_K8S_NAMESPACE "k8s.io"
/* A runtime's answer is at most this long (Docker's inspect of a container
 * is a few KiB). */
#define RUNTIME_ANSWER_MAX (256 << 10)

/* "containerd", "cri-o", "docker". */
const char *runtime_kind_name(enum runtime_kind k);
/* Whether path is a socket root owns in a directory only root can change:
 * 0, -ENOENT (none there), or -EPERM (someone else's, or not a socket). */
int runtime_socket_check(const char *path);
/* Asks the runtime of kind k on socket for the labels of container id (64
 * hex digits) within timeout_ms: 0 with out set (names it may lack),
 * -ENOENT (the runtime has no such container), -ETIMEDOUT, -EPERM (the
 * socket failed runtime_socket_check), -EPROTO (an answer not understood),
 * -E2BIG (an answer over RUNTIME_ANSWER_MAX), -ENOSYS (no libcurl to ask
 * with: said once on stderr), another -errno (no connection). libcurl is
 * loaded by the first question whose socket is there. */
int runtime_ask(enum runtime_kind k, const char *socket, const char *id, long timeout_ms,
		struct kube_names *out);

#endif
