/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_file_key.c: the file an executable mapping maps, as the unwinder
 * keys its table (build-id, or device and inode), and opened safely. */
#include "record/unwind_file_key.h"

#include <string.h>
#include <sys/mman.h>

#include "symbols/vdso.h"
#include "sys/safe_open.h"

uint64_t file_key_hash(const void *k)
{
	return hash_bytes(k, sizeof(struct file_key), 0);
}

bool file_key_equal(const void *a, const void *b)
{
	return !memcmp(a, b, sizeof(struct file_key));
}

void file_key_of_build_id(struct file_key *key, const uint8_t *id, size_t len)
{
	memset(key, 0, sizeof(*key));
	key->kind = 1;
	key->len = (uint8_t)len;
	memcpy(key->id, id, len);
}

void file_key_of_inode(struct file_key *key, const struct perf_mmap *m)
{
	memset(key, 0, sizeof(*key));
	key->kind = 2;
	key->maj = m->maj;
	key->min = m->min;
	key->ino = m->ino;
}

void file_key_of_mapping(struct file_key *key, const struct perf_mmap *m)
{
	if (m->build_id_size)
		file_key_of_build_id(key, m->build_id, m->build_id_size);
	else
		file_key_of_inode(key, m);
}

bool mapping_is_vdso(const struct perf_mmap *m)
{
	return m->filename && !strcmp(m->filename, "[vdso]");
}

bool mapping_wants_table(const struct perf_mmap *m)
{
	return (m->prot & PROT_EXEC) && m->filename && (m->filename[0] == '/' || mapping_is_vdso(m)) &&
	       m->len;
}

int mapping_open(const struct perf_mmap *m)
{
	struct safe_file_id dev = { m->maj, m->min, m->ino };

	if (mapping_is_vdso(m))
		return vdso_open_own();
	return safe_open_mapping(m->pid, m->start, m->start + m->len, m->filename,
				 m->build_id_size ? NULL : &dev, NULL);
}
