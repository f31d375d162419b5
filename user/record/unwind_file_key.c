/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_file_key.c: the file an executable mapping maps, as the unwinder
 * keys its table (the kernel's identity of it: device, inode, and the change
 * time that proves a later open the same version), and opened safely. */
#include "record/unwind_file_key.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "symbols/build_id.h"
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

void file_key_of_inode(struct file_key *key, const struct perf_mmap *m)
{
	memset(key, 0, sizeof(*key));
	key->maj = m->maj;
	key->min = m->min;
	key->ino = m->ino;
}

void file_key_of_stat(struct file_key *key, const struct stat *st)
{
	memset(key, 0, sizeof(*key));
	key->maj = major(st->st_dev);
	key->min = minor(st->st_dev);
	key->ino = st->st_ino;
}

struct rt_unwind_file_key unwind_id_of_file_key(const struct file_key *key)
{
	return (struct rt_unwind_file_key){ .dev = key->maj << 20 | key->min, .ino = key->ino };
}

void file_key_of_unwind_id(struct file_key *key, const struct rt_unwind_file_key *id)
{
	memset(key, 0, sizeof(*key));
	key->maj = id->dev >> 20;
	key->min = id->dev & 0xfffff;
	key->ino = id->ino;
}

bool mapping_is_vdso(const struct perf_mmap *m)
{
	return m->filename && !strcmp(m->filename, "[vdso]");
}

/* A file's path: not the kernel's "//anon" of anonymous executable memory
 * (a JIT's), whose device and inode (0) would name the vdso's table. */
static bool is_file_path(const char *name)
{
	return name[0] == '/' && name[1] != '/';
}

bool mapping_wants_table(const struct perf_mmap *m)
{
	return (m->prot & PROT_EXEC) && m->filename &&
	       (is_file_path(m->filename) || mapping_is_vdso(m)) && m->len;
}

int mapping_open(const struct perf_mmap *m)
{
	struct safe_file_id dev = { m->maj, m->min, m->ino };

	if (mapping_is_vdso(m))
		return vdso_open_own();
	return safe_open_mapping(m->pid, m->start, m->start + m->len, m->filename,
				 m->build_id_size ? NULL : &dev, NULL);
}

int mapping_file_key(const struct perf_mmap *m, struct file_key *key)
{
	struct stat st;
	int fd;

	if (!m->build_id_size) {
		file_key_of_inode(key, m);
		return -1;
	}
	fd = mapping_open(m);
	if (fd < 0)
		return -2;
	if (fstat(fd, &st) || !build_id_matches(fd, m->build_id, m->build_id_size)) {
		close(fd);
		return -2;
	}
	file_key_of_stat(key, &st);
	return fd;
}

void *mapped_file_once(struct hash_map *files, const struct perf_mmap *m, size_t size,
		       void (*inspect)(int fd, const struct perf_mmap *m, void *entry))
{
	struct file_key key;
	int fd = mapping_file_key(m, &key);
	void *entry = NULL;

	if (fd == -2 || (entry = hash_map_get(files, &key)) || !(entry = calloc(1, size)))
		goto out;
	memcpy(entry, &key, sizeof(key));
	if (fd < 0)
		fd = mapping_open(m); /* (proved the record's inode) */
	if (fd >= 0)
		inspect(fd, m, entry);
	if (hash_map_put(files, entry, entry)) {
		free(entry);
		entry = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	return entry;
}
