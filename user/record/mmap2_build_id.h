/* SPDX-License-Identifier: GPL-2.0-only */
/* mmap2_build_id.h: an executable mapping's MMAP2 record, as the kernel wrote
 * it, rewritten with its file's build-id (and the file kept when foreign). */
#ifndef RINGTRACE_MMAP2_BUILD_ID_H
#define RINGTRACE_MMAP2_BUILD_ID_H

#include <stddef.h>

#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "symbols/build_id_cache.h"
#include "symbols/mapped_build_ids.h"

/* An executable mapping's MMAP2 record, as the kernel wrote it (device and
 * inode), is given its file's build-id read from the mapped inode, as the
 * synthesized ones are: the tracking event does not ask the kernel for
 * build-ids, whose MMAP2 flag for them leaks into every other perf event's
 * MMAP2 records (other users' perf record would then misread theirs). A
 * binary mapped by a process in another mount namespace (a container) is
 * also copied into the recording, by build-id, while that process lives:
 * for one that started during the recording, reading its files needs the
 * capabilities dropped once attached (--keep-caps). m and sid are rec
 * decoded (m's build-id filled here when found). Returns the record to
 * write: rec, or the rewritten one. */
const void *mmap2_with_build_id(struct mapped_build_ids *mapped, struct build_id_cache *build_ids,
				struct byte_buffer *rewritten, const void *rec, struct perf_mmap *m,
				const struct perf_sample_id *sid, size_t *size);

/* The NAMESPACES record to write before an MMAP2 (m, sid: it decoded) when its
 * process lives in a mount namespace not ours that none has given for it
 * yet (report keeps the copies of a user's files apart by it): encoded into
 * out (emptied first), 1; else 0. */
int mmap2_namespaces(struct build_id_cache *build_ids, struct byte_buffer *out,
		     const struct perf_mmap *m, const struct perf_sample_id *sid);

#endif
