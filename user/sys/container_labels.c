/* SPDX-License-Identifier: GPL-2.0-only */
/* container_labels.c: what a cgroup path says of the container in it, by the
 * names runtimes and kubelet give their cgroups:
 *   systemd driver:  /kubepods.slice/kubepods-burstable.slice/
 *                    kubepods-burstable-pod<uid, '_' for '-'>.slice/
 *                    cri-containerd-<id>.scope (crio-<id>, docker-<id>)
 *   cgroupfs driver: /kubepods/burstable/pod<uid>/<id>
 *   Docker:          /system.slice/docker-<id>.scope, /docker/<id>
 *   Podman:          .../libpod-<id>.scope
 * A guaranteed pod sits directly under kubepods (no QoS level). */
#include "sys/container_labels.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

/* Whether the len bytes at s are lowercase hex digits. */
static bool hex(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

/* A pod uid (8-4-4-4-12), '-' or, under systemd, '_' between the groups:
 * copied with '-' into out. */
static bool pod_uid(const char *s, size_t len, char out[37])
{
	if (len != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' && s[i] != '_' : !hex(s + i, 1))
			return false;
		out[i] = dash ? '-' : s[i];
	}
	out[36] = '\0';
	return true;
}

/* A container's cgroup: PREFIX<64 hex>.scope, or the bare id (cgroupfs). */
static bool container(const char *part, size_t len, struct container_labels *out)
{
	static const struct {
		const char *prefix, *runtime;
	} scopes[] = {
		{ "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
		{ "docker-", "docker" },             { "libpod-", "podman" },
	};
	static const char scope[] = ".scope";

	if (len == 64 && hex(part, 64)) {
		memcpy(out->container_id, part, 64);
		out->container_id[64] = '\0';
		out->runtime = NULL; /* cgroupfs names no runtime */
		return true;
	}
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t n = strlen(scopes[i].prefix);

		if (len == n + 64 + strlen(scope) && !strncmp(part, scopes[i].prefix, n) &&
		    hex(part + n, 64) && !strncmp(part + n + 64, scope, strlen(scope))) {
			memcpy(out->container_id, part + n, 64);
			out->container_id[64] = '\0';
			out->runtime = scopes[i].runtime;
			return true;
		}
	}
	return false;
}

/* A pod's cgroup: [kubepods-[QOS-]]pod<uid>[.slice] (its QoS class then
 * said in its name, guaranteed where none is). */
static bool pod(const char *part, size_t len, struct container_labels *out)
{
	static const char *const classes[] = { "burstable", "besteffort" };
	const char *p = part, *end = part + len, *qos = NULL;

	if (len > 6 && !strncmp(end - 6, ".slice", 6))
		end -= 6;
	if (end - p > 9 && !strncmp(p, "kubepods-", 9)) {
		p += 9;
		qos = "guaranteed";
		for (size_t i = 0; i < 2; i++) {
			size_t n = strlen(classes[i]);

			if (end - p > (ptrdiff_t)n && !strncmp(p, classes[i], n) && p[n] == '-') {
				qos = classes[i];
				p += n + 1;
			}
		}
	}
	if (end - p < 3 || strncmp(p, "pod", 3) || !pod_uid(p + 3, (size_t)(end - p - 3), out->pod_uid))
		return false;
	if (qos)
		out->qos_class = qos;
	return true;
}

bool container_labels_of(const char *path, struct container_labels *out)
{
	bool kubepods = false, docker = false, found = false;

	memset(out, 0, sizeof(*out));
	for (const char *part = path; *part;) {
		size_t len = strcspn(part, "/");
		bool was_docker = docker;

		docker = len == 6 && !strncmp(part, "docker", 6); /* Docker's cgroupfs parent */

		if (len == 8 && !strncmp(part, "kubepods", 8))
			kubepods = true; /* cgroupfs: the QoS level is a part of its own */
		else if (kubepods && !out->pod_uid[0] && len == 9 && !strncmp(part, "burstable", 9))
			out->qos_class = "burstable";
		else if (kubepods && !out->pod_uid[0] && len == 10 && !strncmp(part, "besteffort", 10))
			out->qos_class = "besteffort";
		else if (len && container(part, len, out)) {
			if (was_docker && !out->runtime)
				out->runtime = "docker";
			found = true;
		}
		else if (len && pod(part, len, out)) {
			if (kubepods && !out->qos_class)
				out->qos_class = "guaranteed";
			found = true;
		}
		part += len;
		part += *part == '/';
	}
	return found;
}
