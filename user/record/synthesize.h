/* SPDX-License-Identifier: GPL-2.0-only */
/* synthesize.h: side-band records for what existed before recording began: the
 * kernel's and modules' text mappings, each process's COMM and MMAP2, each cgroup. */
#ifndef RINGTRACE_SYNTHESIZE_H
#define RINGTRACE_SYNTHESIZE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "symbols/build_id_cache.h"
#include "symbols/mapped_build_ids.h"

/* Every record gets the sample_id trailer of sample_id_type with the fields of
 * sid (the id, time 0), pid and tid set per record. */

/* Appends the kernel's text mapping "[kernel.kallsyms]_text" at _text from
 * /proc/kallsyms, and every loaded module's, each with its build-id (MMAP2,
 * as perf record --buildid-mmap) or without one (MMAP) if it cannot be read.
 * Returns 0, or -errno with err set (-EPERM: addresses hidden by
 * kptr_restrict). */
int synthesize_kernel_mmap(struct byte_buffer *b, uint64_t sample_id_type,
			   const struct perf_sample_id *sid, char *err, size_t errlen);

/* Which of a process's mappings synthesize_processes writes. */
enum mapping_records {
	MAPPINGS_EXEC,     /* the executable ones... */
	MAPPINGS_EH_FRAME, /* ...each followed by its file's .eh_frame_hdr segment's
			      (-g's stack copies: mapped_build_ids.h) */
	MAPPINGS_READABLE, /* every readable one, as perf's mmap_data (dwarf) */
};

/* One line of /proc/PID/maps (NUL-terminated, its file name up to its
 * newline) as an MMAP2 record if it is executable, or readable with
 * mmap_data (as perf synthesizes them): m, its filename path (pathlen bytes
 * at most, "//anon" for none); 1 if it is neither (or not a maps line). */
int synthesize_maps_line(const char *line, struct perf_mmap *m, char *path, size_t pathlen,
			 bool mmap_data);

/* Which processes synthesize_processes writes: those of pids (nr_pids of
 * them), or those in cgroup (a path from the cgroup v2 root) or below it, or
 * (neither) every process in /proc. */
struct process_scope {
	const uint32_t *pids;
	unsigned int nr_pids;
	const char *cgroup;
};

/* Appends a COMM for every thread and an MMAP2 for each mapping `which` names of
 * every process of scope, with its file's build-id (known to build_ids, or
 * read and added there); of workload (if not 0), the command forked and not
 * yet exec'd, its COMM alone, as perf writes its own: its mappings are
 * ringtrace's, which perf would keep past the exec (and unwind the command's
 * stacks by). Processes that exit meanwhile are skipped. A container's
 * binaries go into cache (if not NULL). Once *give_up (NULL: never) is set,
 * the processes not yet written are left out. Returns the number of
 * processes, or -ENOMEM if memory ran out. */
long synthesize_processes(struct byte_buffer *b, uint64_t sample_id_type,
			  const struct perf_sample_id *sid, struct mapped_build_ids *build_ids,
			  struct build_id_cache *cache, enum mapping_records which,
			  const struct process_scope *scope, uint32_t workload,
			  const _Atomic bool *give_up);

/* Appends a PERF_RECORD_CGROUP (id, path) for every cgroup v2 directory.
 * Returns the number of cgroups, or -ENOMEM if memory ran out. */
long synthesize_cgroups(struct byte_buffer *b, uint64_t sample_id_type,
			const struct perf_sample_id *sid);

#endif
