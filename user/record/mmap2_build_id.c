/* SPDX-License-Identifier: GPL-2.0-only */
/* mmap2_build_id.c: an executable mapping's MMAP2 record, as the kernel wrote
 * it, rewritten with its file's build-id (and the file kept when foreign). */
#include "record/mmap2_build_id.h"

#include <sys/mman.h>
#include <unistd.h>

#include "format/recording_layout.h"

const void *mmap2_with_build_id(struct mapped_build_ids *mapped, struct build_id_cache *build_ids,
				struct byte_buffer *rewritten, const void *rec, size_t *size)
{
	const struct perf_event_header *h = rec;
	struct perf_sample_id sid;
	struct perf_mmap m;
	int fd;

	if (h->type != PERF_RECORD_MMAP2 || perf_mmap_decode(rec, RECORDING_SAMPLE_ID_TYPE, &m) ||
	    !(m.prot & PROT_EXEC) || m.build_id_size ||
	    perf_sample_id_decode(h, RECORDING_SAMPLE_ID_TYPE, &sid))
		return rec;
	mapped_build_ids_fill(mapped, m.pid, &m, &fd);
	if (m.build_id_size)
		build_id_cache_add(build_ids, &m, fd);
	if (fd >= 0)
		close(fd);
	if (!m.build_id_size)
		return rec;
	byte_buffer_reset(rewritten);
	if (perf_mmap2_encode(rewritten, RECORDING_SAMPLE_ID_TYPE, &m, &sid))
		return rec;
	*size = rewritten->len;
	return rewritten->data;
}
