/* SPDX-License-Identifier: GPL-2.0-only */
/* build_id_cache.h: copies, inside the recording (DIR/.build-id/xx/yyyy), of
 * the binaries only a container sees (a process in another mount namespace),
 * taken through /proc/PID/root at record time, so that report resolves their
 * symbols after the container is gone. */
#ifndef RINGTRACE_BUILD_ID_CACHE_H
#define RINGTRACE_BUILD_ID_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hash_map.h"

#define BUILD_ID_CACHE_DIR ".build-id"

struct build_id_cache {
	int dirfd;            /* the recording's directory */
	char own_mnt_ns[64];  /* readlink /proc/self/ns/mnt */
	struct hash_map seen; /* build-ids handled (copied or not needed) */
	unsigned int copied;
};

/* dirfd is the recording's directory (kept open by the caller). */
void build_id_cache_init(struct build_id_cache *c, int dirfd);
/* Copies pid's file at path (as pid sees it) under its build-id, if pid
 * lives in another mount namespace and it is not there yet. */
void build_id_cache_add(struct build_id_cache *c, uint32_t pid, const char *path,
			const uint8_t *build_id, size_t len);
void build_id_cache_free(struct build_id_cache *c);

#endif
