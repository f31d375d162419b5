/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_file_key.h: the file an executable mapping maps, as the unwinder
 * keys its table (the kernel's identity of it: device, inode, and the change
 * time that proves a later open the same version), and opened safely. */
#ifndef RINGTRACE_UNWIND_FILE_KEY_H
#define RINGTRACE_UNWIND_FILE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "unwind_maps.h"

/* A file, as the kernel knows it: its device and inode (never its build-id,
 * a name any copy of it can claim). */
struct file_key {
	uint64_t maj, min, ino;
};

/* For hash maps keyed by struct file_key. */
uint64_t file_key_hash(const void *k);
bool file_key_equal(const void *a, const void *b);
void file_key_of_inode(struct file_key *key, const struct perf_mmap *m);
/* The identity of the file st describes (fstat's), as the kernel's records
 * give it. */
void file_key_of_stat(struct file_key *key, const struct stat *st);
/* The key the BPF side knows the file by (the kernel's device number, as
 * MMAP2 records split it: major << 20 | minor), and back. */
struct rt_unwind_file_key unwind_id_of_file_key(const struct file_key *key);
void file_key_of_unwind_id(struct file_key *key, const struct rt_unwind_file_key *id);
/* The vdso: the kernel maps one image into every (64-bit) process of a boot,
 * the one ringtrace has too. */
bool mapping_is_vdso(const struct perf_mmap *m);
/* An executable mapping of a file, or the vdso: what a table is kept for. */
bool mapping_wants_table(const struct perf_mmap *m);
/* Opens the file m maps, proved the device and inode recorded when the
 * record has no build-id to prove it by (the vdso: ringtrace's own image);
 * -1 if it cannot be opened. */
int mapping_open(const struct perf_mmap *m);

#endif
