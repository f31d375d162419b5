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
/* The identity of the file m maps, into key: a kernel's record names it (its
 * device and inode): -1, nothing opened; a synthesized one names a build-id,
 * which any copy claims, so the mapping's file is opened to learn it: the
 * descriptor (the caller's to close), or -2 if it cannot be opened or is
 * not the file the build-id names. */
int mapping_file_key(const struct perf_mmap *m, struct file_key *key);
/* The entry of files (keyed by struct file_key, which begins each entry) of
 * the file m maps, made once: size bytes zeroed, its key set, and inspect
 * called with the file open (not if it cannot be opened). NULL if the file
 * cannot be known, or without memory. */
void *mapped_file_once(struct hash_map *files, const struct perf_mmap *m, size_t size,
		       void (*inspect)(int fd, const struct perf_mmap *m, void *entry));

#endif
