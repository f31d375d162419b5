/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_file_key.h: the file an executable mapping maps, as the unwinder
 * keys its table (build-id, or device and inode), and opened safely. */
#ifndef RINGTRACE_UNWIND_FILE_KEY_H
#define RINGTRACE_UNWIND_FILE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/hash_map.h"
#include "symbols/build_id.h"

/* A file: its build-id (kind 1) or device and inode (kind 2). */
struct file_key {
	uint8_t kind, len;
	uint8_t id[BUILD_ID_MAX + 2];
	uint64_t maj, min, ino;
};

/* For hash maps keyed by struct file_key. */
uint64_t file_key_hash(const void *k);
bool file_key_equal(const void *a, const void *b);
void file_key_of_build_id(struct file_key *key, const uint8_t *id, size_t len);
void file_key_of_inode(struct file_key *key, const struct perf_mmap *m);
/* The key a mapping's file is first looked up by: its build-id when the
 * record carries one, else its device and inode. */
void file_key_of_mapping(struct file_key *key, const struct perf_mmap *m);
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
