/* SPDX-License-Identifier: GPL-2.0-only */
/* address_space.c: the machine as the side-band records describe it over time:
 * threads and their comms, each process's mappings, and symbol lookup through them. */
#include "symbols/address_space.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/perf_record.h"
#include "lib/sorted_count.h"
#include "symbols/kernel_symbols.h"
#include "symbols/perf_map.h"
#include "symbols/vdso.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define UNKNOWN "[unknown]"

/* A direct-mapped cache of resolved addresses: a profile hits the same few
 * thousand addresses again and again, and a hit skips the process, map and
 * symbol lookups. Any new mapping makes every entry stale. At most 8192
 * slots, fewer while fewer addresses came. */
#define RESOLVE_CACHE_BITS 13

struct resolve_cache_entry {
	uint64_t ip;
	uint32_t pid;
	uint32_t generation;
	uint16_t cpumode;
	struct resolved resolved;
};

static uint64_t resolve_hash(uint64_t ip, uint32_t pid, uint16_t cpumode)
{
	return (ip ^ ((uint64_t)pid << 40) ^ ((uint64_t)cpumode << 32)) * 0x9e3779b97f4a7c15ULL;
}

static bool keep_resolved(const void *slot, const void *ctx, uint64_t *hash)
{
	const struct resolve_cache_entry *e = slot;

	*hash = resolve_hash(e->ip, e->pid, e->cpumode);
	return e->generation == ((const struct address_space *)ctx)->generation;
}

void address_space_init(struct address_space *as, const char *kallsyms_path)
{
	memset(as, 0, sizeof(*as));
	hash_map_init(&as->processes, hash_u32_key, equal_u32_key);
	hash_map_init(&as->threads, hash_u32_key, equal_u32_key);
	hash_map_init(&as->dsos, hash_string, equal_string);
	hash_map_init(&as->strings, hash_string, equal_string);
	hash_map_init(&as->cgroups, hash_u64_key, equal_u64_key);
	as->kallsyms_path = kallsyms_path;
	as->generation = 1; /* a zeroed cache entry is stale */
	direct_cache_init(&as->cache, sizeof(struct resolve_cache_entry), RESOLVE_CACHE_BITS,
			  keep_resolved);
}

static void free_process(void *value, void *ctx)
{
	struct process *p = value;

	(void)ctx;
	free(p->maps);
	symtab_free(&p->jit);
	free(p);
}

static void free_dso(void *value, void *ctx)
{
	struct dso *d = value;

	(void)ctx;
	symtab_free(&d->symtab);
	free(d);
}

void address_space_free(struct address_space *as)
{
	kernel_symbols_free(as);
	direct_cache_free(&as->cache);
	hash_map_each(&as->processes, free_process, NULL);
	hash_map_each(&as->dsos, free_dso, NULL);
	hash_map_free_all(&as->threads);
	hash_map_free_all(&as->strings);
	hash_map_free_all(&as->cgroups);
	hash_map_free(&as->processes);
	hash_map_free(&as->dsos);
}

const char *address_space_intern(struct address_space *as, const char *s)
{
	char *copy = hash_map_get(&as->strings, s);

	if (copy)
		return copy;
	copy = strdup(s);
	if (!copy || hash_map_put(&as->strings, copy, copy)) {
		free(copy);
		return NULL;
	}
	return copy;
}

static struct process *get_process(struct address_space *as, uint32_t pid)
{
	return hash_map_get_or_add_u32(&as->processes, pid, sizeof(struct process),
				       offsetof(struct process, pid), NULL);
}

static struct thread *get_thread(struct address_space *as, uint32_t pid, uint32_t tid)
{
	bool added;
	struct thread *t = hash_map_get_or_add_u32(&as->threads, tid, sizeof(struct thread),
						   offsetof(struct thread, tid), &added);

	if (t && added)
		t->pid = pid;
	return t;
}

/* The DSO of path, one per build-id: two files at one path (a binary
 * replaced, a container's) are two DSOs. */
static struct dso *get_dso_build_id(struct address_space *as, const char *path,
				    const uint8_t *build_id, uint8_t size, uint64_t mnt_ns)
{
	static const char hex[] = "0123456789abcdef";
	char key[4096 + 80];
	size_t n = strnlen(path, 4096);
	struct dso *d;

	memcpy(key, path, n);
	if (size)
		key[n++] = '@';
	for (uint8_t i = 0; i < size && i < 20; i++) {
		key[n++] = hex[build_id[i] >> 4];
		key[n++] = hex[build_id[i] & 15];
	}
	key[n] = '\0';
	if (mnt_ns)
		snprintf(key + n, sizeof(key) - n, "#mnt:%llu", (unsigned long long)mnt_ns);
	d = hash_map_get(&as->dsos, key);
	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = address_space_intern(as, path);
	d->key = address_space_intern(as, key);
	if (size)
		memcpy(d->build_id, build_id, size);
	d->build_id_size = size;
	d->mnt_ns = mnt_ns;
	if (!d->path || !d->key || hash_map_put(&as->dsos, d->key, d)) {
		free(d);
		return NULL;
	}
	return d;
}

static struct dso *get_dso(struct address_space *as, const char *path)
{
	return get_dso_build_id(as, path, NULL, 0, 0);
}

/* Inserts m, trimming or splitting the mappings it overlaps, as a new mmap
 * replaces what was mapped there. */
static int insert_map(struct process *p, const struct map *m)
{
	struct map *out = malloc((p->nr_maps + 2) * sizeof(*out));
	bool placed = false;
	size_t nr = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_maps; i++) {
		struct map cur = p->maps[i];

		if (cur.end <= m->start || cur.start >= m->end) {
			if (!placed && cur.start >= m->end) {
				out[nr++] = *m;
				placed = true;
			}
			out[nr++] = cur;
			continue;
		}
		if (cur.start < m->start) { /* its head survives */
			struct map head = cur;

			head.end = m->start;
			out[nr++] = head;
		}
		if (!placed) {
			out[nr++] = *m;
			placed = true;
		}
		if (cur.end > m->end) { /* its tail survives */
			cur.pgoff += m->end - cur.start;
			cur.start = m->end;
			out[nr++] = cur;
		}
	}
	if (!placed)
		out[nr++] = *m;
	free(p->maps);
	p->maps = out;
	p->nr_maps = nr;
	return 0;
}

static int apply_mmap(struct address_space *as, const struct perf_event_header *rec,
		      uint64_t sample_id_type)
{
	struct perf_mmap m;
	struct process *p;
	struct map map;

	if (perf_mmap_decode(rec, sample_id_type, &m))
		return -EINVAL;
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
	    m.pid == (uint32_t)-1) {
		if (!strncmp(m.filename, KERNEL_DSO, strlen(KERNEL_DSO))) {
			as->kernel = get_dso(as, KERNEL_DSO);
			if (!as->kernel)
				return -ENOMEM;
			as->kernel->kernel = true;
			as->kernel_start = m.start;
		}
		return 0;
	}
	if (!m.len)
		return 0;
	if (m.len > UINT64_MAX - m.start) /* no user mapping ends past 2^64 */
		return -EINVAL;
	p = get_process(as, m.pid);
	map = (struct map){ m.start, m.start + m.len, m.pgoff,
			    get_dso_build_id(as, m.filename, m.build_id, m.build_id_size,
					     p ? p->mnt_ns : 0) };
	if (!p || !map.dso)
		return -ENOMEM;
	return insert_map(p, &map);
}

static int apply_comm(struct address_space *as, const struct perf_event_header *rec,
		      uint64_t sample_id_type)
{
	struct perf_comm c;
	struct thread *t;

	if (perf_comm_decode(rec, sample_id_type, &c))
		return -EINVAL;
	t = get_thread(as, c.pid, c.tid);
	if (!t)
		return -ENOMEM;
	t->pid = c.pid;
	t->comm = address_space_intern(as, c.comm);
	/* An exec keeps the old mappings, as perf keeps them: the new program's
	 * replace them as they come, and until the exec returns, samples (of
	 * the kernel loading the new program) carry the old program's user stack. */
	return t->comm ? 0 : -ENOMEM;
}

static int apply_fork(struct address_space *as, const struct perf_event_header *rec)
{
	struct perf_task f;
	struct thread *parent, *child;

	if (perf_task_decode(rec, &f))
		return -EINVAL;
	parent = hash_map_get(&as->threads, &f.ptid);
	child = get_thread(as, f.pid, f.tid);
	if (!child)
		return -ENOMEM;
	child->pid = f.pid;
	if (parent && parent->comm)
		child->comm = parent->comm;
	if (f.pid != f.ppid) { /* a new process starts with a copy of its parent's maps */
		struct process *pp = hash_map_get(&as->processes, &f.ppid);
		struct process *cp = get_process(as, f.pid);

		if (!cp)
			return -ENOMEM;
		if (pp)
			cp->mnt_ns = pp->mnt_ns;
		if (pp && pp->nr_maps) {
			struct map *copy = malloc(pp->nr_maps * sizeof(*copy));

			if (!copy)
				return -ENOMEM;
			memcpy(copy, pp->maps, pp->nr_maps * sizeof(*copy));
			free(cp->maps);
			cp->maps = copy;
			cp->nr_maps = pp->nr_maps;
		}
	}
	return 0;
}

struct cgroup_name {
	uint64_t id;
	const char *path;
};

static int name_cgroup(struct address_space *as, uint64_t id, const char *path)
{
	struct cgroup_name *c = hash_map_get(&as->cgroups, &id);

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->id = id;
		if (hash_map_put(&as->cgroups, &c->id, c)) {
			free(c);
			return -ENOMEM;
		}
	}
	c->path = address_space_intern(as, path);
	return c->path ? 0 : -ENOMEM;
}

static int apply_cgroup(struct address_space *as, const struct perf_event_header *rec,
			uint64_t sample_id_type)
{
	struct perf_cgroup c;

	if (perf_cgroup_decode(rec, sample_id_type, &c))
		return -EINVAL;
	return name_cgroup(as, c.id, c.path);
}

const char *address_space_cgroup(struct address_space *as, uint64_t id)
{
	struct cgroup_name *c = hash_map_get(&as->cgroups, &id);
	char name[48];

	if (c)
		return c->path;
	snprintf(name, sizeof(name), "unknown_cgroup_id:%llu", (unsigned long long)id);
	if (name_cgroup(as, id, name))
		return "unknown_cgroup_id";
	return address_space_cgroup(as, id);
}

/* A process's namespaces: the mappings it makes from now on are of files
 * its mount namespace sees (the ones before stay as they were). */
static int apply_namespaces(struct address_space *as, const struct perf_event_header *rec)
{
	struct perf_namespaces n;
	struct process *p;

	if (perf_namespaces_decode(rec, &n) || !(p = get_process(as, n.pid)))
		return -EINVAL;
	p->mnt_ns = n.ns[MNT_NS_INDEX].ino;
	return 0;
}

int address_space_apply(struct address_space *as, const struct perf_event_header *rec,
			uint64_t sample_id_type)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		as->generation++; /* what resolved before may resolve otherwise now */
		return apply_mmap(as, rec, sample_id_type);
	case PERF_RECORD_COMM:
		return apply_comm(as, rec, sample_id_type);
	case PERF_RECORD_FORK:
		as->generation++;
		return apply_fork(as, rec);
	case PERF_RECORD_CGROUP:
		return apply_cgroup(as, rec, sample_id_type);
	case PERF_RECORD_NAMESPACES:
		return apply_namespaces(as, rec);
	default:
		return 0;
	}
}

const char *address_space_comm(struct address_space *as, uint32_t pid, uint32_t tid)
{
	struct thread **recent = &as->recent_threads[tid % 64];
	struct thread *t = *recent;
	char name[32];

	if (!t || t->tid != tid)
		t = hash_map_get(&as->threads, &tid);
	if (t && t->comm) {
		*recent = t;
		return t->comm;
	}
	if (!pid && !tid)
		return "swapper";
	snprintf(name, sizeof(name), ":%u", tid);
	t = get_thread(as, pid, tid);
	if (t)
		t->comm = address_space_intern(as, name);
	return t && t->comm ? t->comm : UNKNOWN;
}

static const struct map *find_map(const struct process *p, uint64_t ip)
{
	size_t lo = sorted_count_at_or_below(p->maps, p->nr_maps, sizeof(*p->maps),
					     offsetof(struct map, start), ip);

	if (!lo || ip >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

const struct map *address_space_find_map(struct address_space *as, uint32_t pid, uint64_t ip)
{
	const struct process *p = hash_map_get(&as->processes, &pid);

	return p ? find_map(p, ip) : NULL;
}

/* Where the recording kept copies of d's file: for a container's, the copies
 * kept for its mount namespace first (a file a user owns, kept for that
 * namespace alone), then those kept for all. */
static const char *const *copy_dirs(const struct address_space *as, const struct dso *d,
				    const char *dirs[5], char names[2][4096])
{
	size_t n = 0;

	for (size_t i = 0; d->mnt_ns && i < 2 && as->ns_copy_dirs[i]; i++) {
		snprintf(names[i], 4096, "%s/%llu", as->ns_copy_dirs[i],
			 (unsigned long long)d->mnt_ns);
		dirs[n++] = names[i];
	}
	for (size_t i = 0; i < 2 && as->build_id_dirs[i]; i++)
		dirs[n++] = as->build_id_dirs[i];
	dirs[n] = NULL;
	return dirs;
}

static void load_dso(struct address_space *as, struct dso *d)
{
	const char *dirs[5];
	char names[2][4096];

	d->loaded = true;
	if (d->kernel)
		kernel_symbols_load(as, d);
	else if (!strcmp(d->path, "[vdso]")) /* ours: the kernel maps one for all */
		d->unreadable = symtab_load_vdso(&d->symtab, d->build_id, d->build_id_size, NULL,
						 0) != 0;
	else if (d->path[0] == '[' || !strncmp(d->path, "//", 2))
		d->unreadable = true; /* [heap], //anon: nothing on disk to read */
	else
		d->unreadable = symtab_load_elf_build_id(&d->symtab, as->symfs, d->path, d->build_id,
							 d->build_id_size, copy_dirs(as, d, dirs, names),
							 NULL, 0) != 0;
}

/* perf's is_anon_memory and is_no_dso_memory: mappings perf addresses by
 * ip itself (identity__map_ip), not by offset in a file. */
static bool anonymous(const char *path)
{
	return !strcmp(path, "//anon") || !strncmp(path, "/dev/zero", 9) ||
	       !strncmp(path, "/anon_hugepage", 14) || !strncmp(path, "[stack", 6) ||
	       !strncmp(path, "/SYSV", 5) || !strcmp(path, "[heap]");
}

/* Anonymous executable memory (a JIT's code) is named by the process's
 * perf-PID.map, as perf names it. */
static bool resolve_jit(struct address_space *as, struct process *p, uint64_t ip,
			struct resolved *out)
{
	const struct symbol *sym;
	char name[64];

	if (!p->jit_loaded) {
		p->jit_loaded = true;
		snprintf(name, sizeof(name), "/tmp/perf-%u.map", p->pid);
		if (!perf_map_load(&p->jit, as->symfs, p->pid, as->jit_dirs))
			p->jit_dso = address_space_intern(as, name);
	}
	if (!p->jit_dso)
		return false;
	out->dso = p->jit_dso;
	sym = symtab_find(&p->jit, ip);
	if (sym) {
		out->symbol = sym->name;
		out->symbol_start = sym->start;
	}
	return true;
}

static void resolve(struct address_space *as, uint32_t pid, uint64_t ip, uint16_t cpumode,
		    struct resolved *out)
{
	const struct symbol *sym = NULL;
	const struct symtab *table = NULL;
	struct dso *dso = NULL;
	uint64_t addr = ip;

	*out = (struct resolved){ UNKNOWN, UNKNOWN, 0, ip, ip, false, false, false };
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		out->kernel = true;
		out->mapped = true;
		if (!as->kernel) {
			as->kernel = get_dso(as, KERNEL_DSO);
			if (!as->kernel)
				return;
			as->kernel->kernel = true;
		}
		dso = as->kernel;
	} else {
		struct process *p = hash_map_get(&as->processes, &pid);
		const struct map *m = p ? find_map(p, ip) : NULL;

		if (!m)
			return;
		dso = m->dso;
		out->mapped = true;
		if (!anonymous(dso->path))
			out->map_ip = ip - m->start + m->pgoff;
		if (!strncmp(dso->path, "//anon", 6) && resolve_jit(as, p, ip, out))
			return;
		if (!dso->loaded)
			load_dso(as, dso);
		if (dso->unreadable ||
		    symtab_offset_to_lookup_addr(&dso->symtab, ip - m->start + m->pgoff, &addr)) {
			out->dso = dso->path;
			return;
		}
	}
	out->dso = dso->path;
	out->addr = addr;
	if (!dso->loaded)
		load_dso(as, dso);
	if (dso == as->kernel)
		table = kernel_symbols_for(as, dso, addr);
	else if (!dso->unreadable)
		table = &dso->symtab;
	if (table)
		sym = symtab_find(table, addr);
	/* a kernel address outside perf's map of the kernel (from _text to
	 * its last symbol's end: a BPF program's image freed since, a module
	 * unloaded) is in no mapping, as perf has it */
	if (!sym && dso == as->kernel && table && table->kernel_end &&
	    (ip < as->kernel_start || ip >= table->kernel_end)) {
		out->dso = UNKNOWN;
		out->mapped = false;
		return;
	}
	if (sym) {
		out->symbol = symtab_name(table, sym);
		out->symbol_start = sym->start;
	}
}

void address_space_resolve(struct address_space *as, uint32_t pid, uint64_t ip,
			   uint16_t cpumode, struct resolved *out)
{
	uint64_t h = resolve_hash(ip, pid, cpumode);
	struct resolve_cache_entry *e = direct_cache_slot(&as->cache, h);

	if (e && e->generation == as->generation && e->ip == ip && e->pid == pid &&
	    e->cpumode == cpumode) {
		*out = e->resolved;
		return;
	}
	resolve(as, pid, ip, cpumode, out);
	e = direct_cache_fill(&as->cache, h, as);
	if (e)
		*e = (struct resolve_cache_entry){ ip, pid, as->generation, cpumode, *out };
}
