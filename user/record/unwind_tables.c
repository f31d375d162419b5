/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_tables.c: the in-kernel unwinder's tables kept current: one per file
 * (by the kernel's identity of it: device and inode), compiled by the builder
 * or read from the cache, the start's files opened before the capabilities
 * are dropped (each process's mappings of them: unwind_processes.c). */
#include "record/unwind_tables_state.h"

#include <errno.h>
#include <link.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <unistd.h>

#include "format/perf_record.h"
#include "record/unwind_builder.h"
#include "record/unwind_eviction.h"
#include "record/unwind_file_key.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "symbols/build_id.h"
#include "symbols/vdso.h"
#include "sys/safe_open.h"

/* f is the file key names, of the version st describes: the key the BPF
 * side finds it by at an exec (the kernel's device number, as its
 * MMAP2 records split it). */
static void set_identity(struct unwind_file *f, const struct file_key *key, const struct stat *st)
{
	f->key = *key;
	f->id = unwind_id_of_file_key(key);
	f->ctime = st->st_ctim;
}

static bool same_version(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

uint32_t unwind_tables_rows_for(uint64_t mem)
{
	uint64_t rows = mem / UNWIND_ROW_KERNEL_BYTES;

	return rows > RT_UNWIND_MAX_ROWS ? RT_UNWIND_MAX_ROWS : (uint32_t)(rows ? rows : 1);
}

/* Side-band kept for ordering at once: a busy machine's 100 ms of it. */
#define SIDEBAND_ORDER_MAX_BYTES (16u << 20)

static uint64_t hash_start_mapping(const void *k)
{
	return hash_bytes(k, sizeof(struct start_mapping_key), 0);
}

static bool equal_start_mapping(const void *a, const void *b)
{
	return !memcmp(a, b, sizeof(struct start_mapping_key));
}

struct unwind_process *unwind_add_process(struct unwind_tables *t, uint32_t pid)
{
	return hash_map_get_or_add_u32(&t->processes, pid, sizeof(struct unwind_process),
				       offsetof(struct unwind_process, pid), NULL);
}

/* The nice value below the recording's own that a target's tables are
 * compiled at: cc1's first stage of a `make -j2` is ready ~190 ms after its
 * exec at -10, ~250 at -5 and ~400 at 0 (2-CPU VM, scenario 7's build). */
#define UNWIND_TARGETS_NICE (-10)

int unwind_tables_init(struct unwind_tables *t, const struct bpf_sampler *s, uint32_t rows,
		       const uint32_t *tgids, unsigned int nr_tgids, bool follow_forks,
		       uint64_t sample_id_type, const char *cache_dir, uint64_t cache_size,
		       bool on_demand, const _Atomic bool *start_abandoned)
{
	char err[512];

	memset(t, 0, sizeof(*t));
	t->on = true;
	t->start_abandoned = start_abandoned;
	if (unwind_maps_init(&t->maps, s, rows))
		return -1;
	hash_map_init(&t->files, file_key_hash, file_key_equal);
	hash_map_init(&t->start_mappings, hash_start_mapping, equal_start_mapping);
	hash_map_init(&t->superseded, hash_u32_key, equal_u32_key);
	hash_map_init(&t->preopened, file_key_hash, file_key_equal);
	hash_map_init(&t->processes, hash_u32_key, equal_u32_key);
	t->every_process = nr_tgids == 0;
	t->follow_forks = follow_forks;
	t->on_demand = on_demand;
	t->prune_ns = monotonic_ns();
	t->sample_id_type = sample_id_type;
	if (cache_dir) {
		t->cache = unwind_cache_open(cache_dir, cache_size, err, sizeof(err));
		if (!t->cache)
			rt_warn("%s; recording without it", err);
		else if (!(t->cache_dir = strdup(cache_dir)))
			return -1;
	}
	sideband_order_init(&t->order, SIDEBAND_ORDER_MAX_BYTES);
	t->builder = unwind_builder_new(t->cache, &(struct unwind_budget){
		.max_rows = UNWIND_DEFAULT_MAX_ROWS,
		.max_cfi_bytes = UNWIND_DEFAULT_MAX_CFI_BYTES,
		.max_seconds = UNWIND_DEFAULT_MAX_SECONDS,
	});
	if (!t->builder)
		return -1;
	/* the processes a recording is asked for (-p, the workload): the
	 * tables of what they run compiled ahead of them, so that their first
	 * samples have stacks (not under -a: no local user's files are
	 * compiled at a priority above theirs); the threads start now, while
	 * the capabilities that allow it are held */
	if (!t->every_process && unwind_builder_start(t->builder, UNWIND_TARGETS_NICE))
		return -1;
	for (unsigned int i = 0; i < nr_tgids; i++)
		if (!unwind_add_process(t, tgids[i]))
			return -1;
	return 0;
}

/* (unwind_tables_state.h) */
void unwind_without_table(struct unwind_tables *t, struct unwind_file *f)
{
	t->files_without_table++;
	if (f->id.ino)
		unwind_maps_add_file(&t->maps, &f->id, &f->table, 0);
}

/* A file's table compiled: loaded, and given to the mappings of it. */
static void file_ready(struct unwind_tables *t, struct unwind_built *built)
{
	struct unwind_file *f = built->tag;
	bool had_table = f->table.nr_rows;

	t->build_seconds += built->seconds;
	t->files_from_cache += built->from_cache;
	t->first_stages += built->first_stage;
	f->exec_vaddr_delta = built->exec_vaddr_delta;
	f->ready = true;
	f->building &= built->first_stage;
	/* (had_table: a first stage's table came before, and stays if the
	 * whole does not come) */
	if (!built->rows) {
		if (!had_table)
			unwind_without_table(t, f);
		if (built->refusal < UNWIND_NR_REFUSALS)
			t->files_refused[built->refusal]++;
	} else {
		switch (unwind_load_rows(t, f, built->rows, built->nr, !built->first_stage)) {
		case UNWIND_WAITING:
			built->rows = NULL; /* kept by f */
			break;
		case UNWIND_FAILED:
			if (!had_table)
				unwind_without_table(t, f);
			break;
		case UNWIND_NO_ROOM: /* counted, tried again later */
		case UNWIND_LOADED:
			break;
		}
	}
	free(built->rows);
}

/* A queued file opened before the capabilities were dropped. */
struct preopened {
	struct file_key key;
	int fd;
};

#define MAX_PREOPENED 512

/* The descriptor opened for key before the drop (now the caller's), or -1. */
static int take_preopened(struct unwind_tables *t, const struct file_key *key)
{
	struct preopened *p = hash_map_remove(&t->preopened, key);
	int fd = p ? p->fd : -1;

	free(p);
	return fd;
}

static void close_preopened(void *value, void *ctx)
{
	struct preopened *p = value;

	(void)ctx;
	close(p->fd);
	free(p);
}

static bool abandoned(const struct unwind_tables *t)
{
	return t->start_abandoned && atomic_load(t->start_abandoned);
}

/* The queued mappings' files, as the kernel has them mapped (their records
 * name them by build-id, which a copy shares): each mapping's device, inode
 * and change time, and a descriptor of each file (up to MAX_PREOPENED), for
 * the tables compiled once the capabilities are dropped. */
void unwind_tables_open_queued(struct unwind_tables *t)
{
	const void *at, *end;
	struct perf_mmap m;

	if (!t->queued)
		return;
	at = t->queued + t->queued_off;
	end = t->queued + t->queued_len;
	while (t->on && !abandoned(t) && perf_next_mmap2(&at, end, t->sample_id_type, &m)) {
		struct start_mapping *sm;
		struct preopened *p;
		struct stat st;
		int fd;

		if (!mapping_wants_table(&m) || !m.build_id_size)
			continue;
		fd = mapping_open(&m);
		if (fd < 0)
			continue;
		sm = calloc(1, sizeof(*sm));
		if (!sm || fstat(fd, &st) || !build_id_matches(fd, m.build_id, m.build_id_size)) {
			free(sm);
			close(fd);
			continue;
		}
		sm->at = (struct start_mapping_key){ .pid = m.pid, .start = m.start };
		file_key_of_stat(&sm->file, &st);
		sm->ctime = st.st_ctim;
		if (hash_map_get(&t->start_mappings, &sm->at) ||
		    hash_map_put(&t->start_mappings, &sm->at, sm))
			free(sm);
		else if (t->preopened.len < MAX_PREOPENED && !hash_map_get(&t->preopened, &sm->file) &&
			 (p = malloc(sizeof(*p)))) {
			p->key = sm->file;
			p->fd = fd;
			if (!hash_map_put(&t->preopened, &p->key, p))
				continue;
			free(p);
		}
		close(fd);
	}
}

/* A table that found no room is compiled (read from the cache) again when a
 * process maps its file a second after: others may have left room since. */
#define NO_ROOM_RETRY_NS 1000000000ull

/* (unwind_tables_state.h) */
void unwind_submit(struct unwind_tables *t, struct unwind_file *f, int fd, bool urgent)
{
	f->building = true;
	f->ready = false;
	if (unwind_builder_submit(t->builder, f, fd, urgent)) {
		f->ready = true;
		f->building = false;
		t->files_without_table += !f->table.nr_rows;
		close(fd);
	}
}

/* f, found for m: compiled again if it found no room a while ago. */
static struct unwind_file *retried(struct unwind_tables *t, struct unwind_file *f,
				   const struct perf_mmap *m, bool urgent)
{
	int fd;

	/* (never one larger than the map) */
	if (!f || !f->no_room || f->building || f->rows_wanted > t->maps.capacity ||
	    monotonic_ns() - f->no_room_ns < NO_ROOM_RETRY_NS)
		return f;
	f->no_room = false;
	fd = mapping_open(m);
	if (fd >= 0)
		unwind_submit(t, f, fd, urgent);
	return f;
}

/* The file m maps: found by the kernel's identity of it, its table compiled
 * the first time it is seen, and again when a later open finds it changed.
 * A kernel's record names the device and inode (the file opened is proved
 * that inode; its generation, once known, proves a later record the same
 * inode); a synthesized record of the start names a build-id, which any copy
 * can claim: its mapping's file is the one opened at the start. NULL if it
 * cannot be opened now. */
static struct unwind_file *file_of(struct unwind_tables *t, const struct perf_mmap *m, bool urgent)
{
	/* the vdso: one image for every process of the boot, ringtrace's own,
	 * known by no device and inode */
	bool vdso = mapping_is_vdso(m);
	const struct start_mapping *sm = NULL;
	struct unwind_file *f = NULL;
	struct file_key key;
	struct stat st;
	int fd = -1;

	if (vdso) {
		memset(&key, 0, sizeof(key));
		if ((f = hash_map_get(&t->files, &key)))
			return f;
	} else if (!m->build_id_size) {
		file_key_of_inode(&key, m);
		f = hash_map_get(&t->files, &key);
		if (f && f->generation_known && f->generation == m->ino_generation)
			return retried(t, f, m, urgent);
	} else if ((sm = hash_map_get(&t->start_mappings,
				      &(struct start_mapping_key){
					      /* (a child forked meanwhile: its parent's) */
					      .pid = unwind_start_ancestor(t, m->pid),
					      .start = m->start }))) {
		key = sm->file;
		f = hash_map_get(&t->files, &key);
		if (f && same_version(&f->ctime, &sm->ctime))
			return retried(t, f, m, urgent);
		fd = take_preopened(t, &key);
	}
	if (fd < 0)
		fd = mapping_open(m);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) ||
	    (m->build_id_size && !build_id_matches(fd, m->build_id, m->build_id_size))) {
		close(fd);
		return NULL;
	}
	/* (the inode mapping_open proved, for a kernel's record) */
	if (!vdso)
		file_key_of_stat(&key, &st);
	f = hash_map_get(&t->files, &key);
	if (f && same_version(&f->ctime, &st.st_ctim)) {
		if (!m->build_id_size) {
			f->generation = m->ino_generation;
			f->generation_known = true;
		}
		close(fd);
		return retried(t, f, m, urgent);
	}
	if (f) {
		/* written in place, or its inode freed and reused since:
		 * compiled again, from the version mapped now */
		if (f->building) {
			close(fd);
			return f; /* (and again at a mapping after it is done) */
		}
		t->files_changed++;
		f->ctime = st.st_ctim;
	} else {
		f = calloc(1, sizeof(*f));
		if (!f || (set_identity(f, &key, &st), hash_map_put(&t->files, &f->key, f))) {
			free(f);
			close(fd);
			return NULL;
		}
		t->nr_files++;
	}
	if (!m->build_id_size) {
		f->generation = m->ino_generation;
		f->generation_known = true;
	}
	/* --unwind-tables sampled: a new file left until a walk meets it
	 * (unwind_tables_collect); a file changed since its table is
	 * compiled again at once, its old table no longer to be given */
	if (t->on_demand && !vdso && !f->ready && !f->table.nr_rows) {
		close(fd);
		f->deferred = true;
		free(f->path);
		f->path = strdup(m->filename);
		t->files_deferred++;
		return f;
	}
	/* compiled by the builder's thread, never this one: its mappings
	 * fall back to frame pointers until then; a process's that started
	 * during the recording before those of the start's backlog */
	f->urgent = urgent;
	unwind_submit(t, f, fd, urgent);
	return f;
}

struct unwind_file *unwind_file_of(struct unwind_tables *t, const struct perf_mmap *m,
				   bool urgent)
{
	struct unwind_file *f = file_of(t, m, urgent);

	/* (a deferred file is opened again by the last mapping of it seen,
	 * when no tracked process maps it any more) */
	if (f && f->deferred) {
		f->pid = m->pid;
		f->start = m->start;
		f->end = m->start + m->len;
	}
	return f;
}

/* The table of the file at path (opened as this process sees it), compiled
 * now under its device and inode, for a program about to start. */
static void prebuild(struct unwind_tables *t, const char *path)
{
	struct unwind_built built;
	struct unwind_file *f;
	struct file_key key;
	struct stat st;
	/* a regular file, non-blocking: a FIFO where the program is looked
	 * for does not hold up the start */
	int fd = safe_openat(AT_FDCWD, path, SAFE_OPEN_FOLLOW, &st);

	if (fd < 0)
		return;
	file_key_of_stat(&key, &st);
	if (abandoned(t) || hash_map_get(&t->files, &key) || !(f = calloc(1, sizeof(*f)))) {
		close(fd);
		return;
	}
	set_identity(f, &key, &st);
	if (hash_map_put(&t->files, &f->key, f)) {
		free(f);
		close(fd);
		return;
	}
	t->nr_files++;
	f->last_mapped = ++t->map_clock; /* a program about to start maps it */
	unwind_builder_compile_now(t->builder, f, fd, t->start_abandoned, &built);
	file_ready(t, &built);
}

/* The program a workload will exec, as execvp finds it. */
static void prebuild_program(struct unwind_tables *t, const char *program)
{
	const char *path = getenv("PATH");
	char full[4096];

	if (strchr(program, '/')) {
		prebuild(t, program);
		return;
	}
	for (const char *dir = path ? path : "/usr/bin:/bin"; dir && *dir;) {
		size_t n = strcspn(dir, ":");

		snprintf(full, sizeof(full), "%.*s/%s", (int)n, dir, program);
		if (!access(full, X_OK)) {
			prebuild(t, full);
			return;
		}
		dir = dir[n] ? dir + n + 1 : NULL;
	}
}

/* dl_iterate_phdr's: the C library and the dynamic loader ringtrace runs
 * with, prebuilt. */
static int prebuild_own_library(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	if (info->dlpi_name &&
	    (strstr(info->dlpi_name, "/libc.so") || strstr(info->dlpi_name, "/ld-linux")))
		prebuild(ctx, info->dlpi_name);
	return 0;
}

void unwind_tables_await_exec(struct unwind_tables *t, uint32_t pid, const char *program)
{
	struct unwind_process *p = unwind_add_process(t, pid);

	if (p)
		p->until_exec = true;
	/* before it runs: its program, and the C library and the dynamic
	 * loader it maps in its first milliseconds (ours: the same files;
	 * the recording holds the command's side-band only, not ours) */
	prebuild_program(t, program);
	dl_iterate_phdr(prebuild_own_library, t);
}

void unwind_tables_queue(struct unwind_tables *t, const void *buf, size_t len)
{
	t->queued = buf;
	t->queued_len = len;
	t->queued_off = 0;
}

bool unwind_tables_work(struct unwind_tables *t, unsigned int budget_ms)
{
	double end = monotonic_seconds() + budget_ms / 1e3;

	if (!t->on)
		return false;
	while (t->queued_off + sizeof(struct perf_event_header) <= t->queued_len) {
		const struct perf_event_header *h = (const void *)(t->queued + t->queued_off);
		struct perf_sideband rec;

		if (h->size < sizeof(*h) || t->queued_off + h->size > t->queued_len)
			break;
		if (!perf_sideband_decode(h, t->sample_id_type, &rec))
			unwind_track(t, &rec, true);
		t->queued_off += h->size;
		if (monotonic_seconds() >= end) {
			unwind_write_mappings(t);
			return t->queued_off < t->queued_len;
		}
	}
	unwind_write_mappings(t);
	t->queued_off = t->queued_len;
	hash_map_each(&t->preopened, close_preopened, NULL);
	hash_map_free(&t->preopened);
	hash_map_init(&t->preopened, file_key_hash, file_key_equal);
	hash_map_free_all(&t->superseded);
	hash_map_init(&t->superseded, hash_u32_key, equal_u32_key);
	hash_map_free_all(&t->start_mappings);
	hash_map_init(&t->start_mappings, hash_start_mapping, equal_start_mapping);
	free(t->heirs);
	t->heirs = NULL;
	t->nr_heirs = t->heirs_cap = 0;
	return false;
}

int unwind_tables_fd(const struct unwind_tables *t)
{
	return t->on ? unwind_builder_fd(t->builder) : -1;
}

void unwind_tables_collect(struct unwind_tables *t)
{
	struct unwind_built built[16];
	size_t n;

	if (!t->on)
		return;
	while ((n = unwind_builder_collect(t->builder, built, 16)) > 0) {
		for (size_t i = 0; i < n; i++)
			file_ready(t, &built[i]);
	}
	if (t->on_demand)
		unwind_serve_walks(t);
}

static void free_path(void *value, void *ctx)
{
	struct unwind_file *f = value;

	(void)ctx;
	free(f->path);
}

void unwind_tables_free(struct unwind_tables *t)
{
	if (!t->on)
		return;
	unwind_builder_free(t->builder);
	unwind_waiting_free(t);
	unwind_maps_free(&t->maps);
	unwind_cache_close(t->cache);
	free(t->cache_dir);
	hash_map_each(&t->files, free_path, NULL);
	hash_map_free_all(&t->files);
	hash_map_free_all(&t->start_mappings);
	hash_map_free_all(&t->superseded);
	hash_map_each(&t->preopened, close_preopened, NULL);
	hash_map_free(&t->preopened);
	hash_map_free_all(&t->processes);
	free(t->unwritten);
	free(t->heirs);
	sideband_order_free(&t->order);
	t->on = false;
}
