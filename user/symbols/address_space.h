/* SPDX-License-Identifier: GPL-2.0-only */
/* address_space.h: the machine as the side-band records describe it over time:
 * threads and their comms, each process's mappings, and symbol lookup through them. */
#ifndef RINGTRACE_ADDRESS_SPACE_H
#define RINGTRACE_ADDRESS_SPACE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/direct_cache.h"
#include "lib/hash_map.h"
#include "symbols/symbols.h"

struct dso {
	const char *path; /* as the mapping names it */
	const char *key;  /* path, its build-id when the mapping gave one, its mount namespace */
	uint64_t mnt_ns;  /* of the process mapping it, when a container's: see struct process */
	uint8_t build_id[20];
	uint8_t build_id_size;
	bool kernel;
	bool loaded;
	bool unreadable;
	struct symtab symtab;
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct process {
	uint32_t pid;
	/* the inode of its mount namespace when a NAMESPACES record gave one
	 * (a container's: the recording keeps the copies of files a user owns
	 * per namespace), inherited at fork; else 0 */
	uint64_t mnt_ns;
	struct map *maps; /* sorted by start, non-overlapping */
	size_t nr_maps;
	struct symtab jit;   /* its JIT's perf-PID.map, read when first needed */
	const char *jit_dso; /* "/tmp/perf-PID.map" once read, else NULL */
	bool jit_loaded;
};

struct thread {
	uint32_t tid;
	uint32_t pid;
	const char *comm; /* interned */
};

struct address_space {
	struct hash_map processes; /* pid -> struct process */
	struct hash_map threads;   /* tid -> struct thread */
	/* threads address_space_comm found lately, by tid: a profile's samples
	 * come from a few threads again and again (threads never move) */
	struct thread *recent_threads[64];
	struct hash_map dsos;      /* path -> struct dso */
	struct hash_map strings;   /* interned strings */
	struct hash_map cgroups;   /* cgroup id -> struct cgroup_name */
	struct dso *kernel;        /* set by the kernel's MMAP record */
	uint64_t kernel_start;     /* where that record maps the kernel (_text) */
	const char *kallsyms_path;
	const char *symfs;            /* where binaries are looked for (perf's --symfs), or NULL: / */
	const char *build_id_dirs[3]; /* copies kept by the recording; NULL-terminated */
	const char *ns_copy_dirs[3];  /* those kept per mount namespace (DIR/.build-id-ns); likewise */
	const char *jit_dirs[3];      /* where the recording kept JITs' perf-PID.map; likewise */
	struct kallsyms_loader *kernel_loader; /* kallsyms being read beside, or NULL */
	/* kallsyms read again for addresses a kept table does not answer for
	 * (kernel_symbols.c) */
	struct symtab kernel_now;
	bool kernel_now_read, kernel_now_unreadable;
	struct direct_cache cache; /* addresses resolved lately (struct resolve_cache_entry) */
	uint32_t generation;       /* of the mappings: cache entries of older ones are stale */
};

/* A resolved address; strings live as long as the address space. */
struct resolved {
	const char *dso;    /* "[kernel.kallsyms]", a path, or "[unknown]" */
	const char *symbol; /* a name, or "[unknown]" */
	uint64_t symbol_start;
	uint64_t addr;      /* ip where symbols live: symbol_start's address space */
	uint64_t map_ip;    /* ip as perf's map__map_ip gives it, which perf shows for an
			     * address without a symbol: its offset in the mapped file, or
			     * ip itself (kernel, anonymous memory, no mapping) */
	bool mapped;        /* ip lies in a mapping of its process, or is the kernel's */
	bool kernel;
	bool inlined;       /* symbol is a function the debug information says was
			     * inlined at ip (or names apart from the symbol table):
			     * perf's "(inlined)" frames of --call-graph dwarf */
};

void address_space_init(struct address_space *as, const char *kallsyms_path);
void address_space_free(struct address_space *as);

/* Starts reading the kernel's symbols (kallsyms) in a thread of its own,
 * for the first kernel address resolved to take; a hint: without a thread
 * (and for a copy under 64 KiB, which costs less to parse than a thread)
 * they are read when first needed. Call it when no fork is to come while it
 * runs. */
void address_space_load_kernel_beside(struct address_space *as);
/* Whether the kernel's symbols are there to resolve with at once: none is
 * being read beside, or it is read (resolving waits for it otherwise). */
bool address_space_kernel_ready(const struct address_space *as);

/* Applies a COMM, MMAP, MMAP2, FORK, EXIT, CGROUP or NAMESPACES record (others
 * are ignored).
 * Returns 0, or -EINVAL if the record is malformed, -ENOMEM if memory ran out. */
int address_space_apply(struct address_space *as, const struct perf_event_header *rec,
			uint64_t sample_id_type);

/* The path of a cgroup id from the CGROUP records ("unknown_cgroup_id:N" if
 * none named it). */
const char *address_space_cgroup(struct address_space *as, uint64_t id);

/* The comm of tid ("swapper" for 0, ":tid" if never named). */
const char *address_space_comm(struct address_space *as, uint32_t pid, uint32_t tid);

/* Resolves ip of pid in the given cpumode (PERF_RECORD_MISC_KERNEL/USER). */
void address_space_resolve(struct address_space *as, uint32_t pid, uint64_t ip,
			   uint16_t cpumode, struct resolved *out);

/* The mapping of pid holding ip, or NULL. */
const struct map *address_space_find_map(struct address_space *as, uint32_t pid, uint64_t ip);

/* An interned copy of s, or NULL if memory ran out. */
const char *address_space_intern(struct address_space *as, const char *s);

#endif
