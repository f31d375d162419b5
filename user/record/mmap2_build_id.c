/* SPDX-License-Identifier: GPL-2.0-only */
/* mmap2_build_id.c: an executable mapping's MMAP2 record, as the kernel wrote
 * it, rewritten with its file's build-id (and the file kept when foreign). */
#include "record/mmap2_build_id.h"

#include <sys/mman.h>
#include <unistd.h>

#include "format/recording_layout.h"

const void *mmap2_with_build_id(struct mapped_build_ids *mapped, struct build_id_cache *build_ids,
				struct byte_buffer *rewritten, const void *rec, struct perf_mmap *m,
				const struct perf_sample_id *sid, size_t *size)
{
	int fd;

	if (!(m->prot & PROT_EXEC) || m->build_id_size)
		return rec;
	mapped_build_ids_fill(mapped, m->pid, m, &fd);
	if (m->build_id_size)
		build_id_cache_add(build_ids, m, fd);
	if (fd >= 0)
		close(fd);
	if (!m->build_id_size)
		return rec;
	byte_buffer_reset(rewritten);
	if (perf_mmap2_encode(rewritten, RECORDING_SAMPLE_ID_TYPE, m, sid))
		return rec;
	*size = rewritten->len;
	return rewritten->data;
}

int mmap2_namespaces(struct build_id_cache *build_ids, struct byte_buffer *out,
		     const struct perf_mmap *m, const struct perf_sample_id *sid)
{
	struct perf_namespaces ns;

	if (!build_id_cache_new_namespace(build_ids, m, &ns))
		return 0;
	byte_buffer_reset(out);
	return !perf_namespaces_encode(out, RECORDING_SAMPLE_ID_TYPE, &ns, sid);
}
