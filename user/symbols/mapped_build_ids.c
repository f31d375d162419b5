/* SPDX-License-Identifier: GPL-2.0-only */
/* mapped_build_ids.c: the build-ids of the files processes map (and where
 * their .eh_frame_hdr is mapped), read from the mapped inode itself and kept
 * by device and inode. */
#include "symbols/mapped_build_ids.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/eh_frame_segment.h"
#include "sys/safe_open.h"

struct build_id_entry {
	uint64_t file[3]; /* major, minor, inode: the key */
	uint8_t size;
	uint8_t id[BUILD_ID_MAX];
	struct eh_frame_segment eh_frame;
};

static uint64_t hash_file(const void *k)
{
	return hash_bytes(k, 3 * sizeof(uint64_t), 0);
}

static bool equal_file(const void *a, const void *b)
{
	return !memcmp(a, b, 3 * sizeof(uint64_t));
}

void mapped_build_ids_init(struct mapped_build_ids *t, bool eh_frame)
{
	t->eh_frame = eh_frame;
	hash_map_init(&t->by_file, hash_file, equal_file);
}

void mapped_build_ids_fill(struct mapped_build_ids *t, uint32_t pid, struct perf_mmap *m,
			   int *fd)
{
	struct build_id_entry *e, probe = { .file = { m->maj, m->min, m->ino } };
	struct safe_file_id dev = { m->maj, m->min, m->ino };
	ssize_t len;

	*fd = -1;
	m->build_id_size = 0;
	e = hash_map_get(&t->by_file, probe.file);
	if (!e) {
		if (!m->filename || m->filename[0] != '/')
			return;
		*fd = safe_open_mapping(pid, m->start, m->start + m->len, m->filename, &dev, NULL);
		if (*fd < 0)
			return; /* gone, or not the file mapped: no build-id rather than a wrong one */
		if (t->by_file.len >= MAPPED_BUILD_IDS_MAX) {
			hash_map_free_all(&t->by_file);
			t->forgotten++;
		}
		e = calloc(1, sizeof(*e));
		if (!e)
			return;
		*e = probe;
		len = build_id_read(*fd, e->id);
		e->size = len > 0 ? (uint8_t)len : 0;
		if (t->eh_frame)
			eh_frame_segment_read(*fd, &e->eh_frame);
		if (hash_map_put(&t->by_file, e->file, e)) {
			free(e);
			return;
		}
	}
	m->build_id_size = e->size;
	memcpy(m->build_id, e->id, e->size);
}

bool mapped_build_ids_eh_frame_mapping(const struct mapped_build_ids *t,
				       const struct perf_mmap *exec, struct perf_mmap *out)
{
	struct build_id_entry probe = { .file = { exec->maj, exec->min, exec->ino } };
	const struct build_id_entry *e = hash_map_get(&t->by_file, probe.file);

	return e && eh_frame_segment_mapping(&e->eh_frame, exec, out);
}

void mapped_build_ids_free(struct mapped_build_ids *t)
{
	hash_map_free_all(&t->by_file);
}
