/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_eviction.c: room in the rows map for a table that finds none, made
 * by evicting the tables of files no tracked process maps, least recently
 * mapped first. An evicted table is retired, not freed: the kernel side may
 * have given its rows to a process exec'd just before (by the file's entry,
 * deleted at once), which keeps them until the loader tracks that process's
 * MMAP2s, stamped before the eviction; so the rows are reused only once the
 * side-band is tracked past it, and a table waits for them meanwhile. And
 * (--unwind-tables sampled) the files without a table, or none yet, that no
 * tracked process maps forgotten, so that what churn maps is not kept. */
#include "record/unwind_eviction.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/monotonic.h"

/* Marks the files the tracked processes map. */
static void mark_mapped(void *value, void *ctx)
{
	struct unwind_process *p = value;
	uint64_t epoch = *(const uint64_t *)ctx;

	for (uint32_t i = 0; i < p->pm.nr && i < RT_UNWIND_MAX_MAPPINGS; i++)
		if (p->origin[i].file)
			p->origin[i].file->mapped_epoch = epoch;
}

static int by_last_mapped(const void *a, const void *b)
{
	const struct unwind_file *x = *(struct unwind_file *const *)a;
	const struct unwind_file *y = *(struct unwind_file *const *)b;

	return x->last_mapped < y->last_mapped ? -1 : x->last_mapped > y->last_mapped;
}

static bool evictable(const struct unwind_file *f, uint64_t epoch, const struct unwind_file *loading)
{
	return f != loading && f->ready && !f->building && !f->waiting && f->table.nr_rows &&
	       f->mapped_epoch != epoch;
}

/* Free rows enough for need, or soon: retired ones (and coming, rows about
 * to be retired) may join the free. */
static bool room_for(const struct unwind_tables *t, uint64_t need, uint64_t coming)
{
	return t->maps.retired_rows + coming + extents_largest(&t->maps.rows_free) >= need;
}

/* Evicts the least recently mapped tables no tracked process maps (but
 * loading's, whose table is being loaded) until there is room_for need rows;
 * whether there is. */
static bool evict_for(struct unwind_tables *t, uint64_t need, const struct unwind_file *loading)
{
	struct unwind_file **files;
	size_t nr_victims = 0, evicted = 0;
	uint64_t epoch = ++t->mark_epoch, stamp, rows = 0;

	if (room_for(t, need, 0))
		return true;
	files = (struct unwind_file **)hash_map_values(&t->files);
	if (!files)
		return false;
	hash_map_each(&t->processes, mark_mapped, &epoch);
	for (size_t i = 0; i < t->files.len; i++)
		if (evictable(files[i], epoch, loading)) {
			files[nr_victims++] = files[i];
			rows += files[i]->table.nr_rows;
		}
	/* none evicted in vain: if all of them cannot make the room */
	if (t->maps.rows_free.free_slots + t->maps.retired_rows + rows < need)
		nr_victims = 0;
	qsort(files, nr_victims, sizeof(*files), by_last_mapped);
	for (uint64_t freed = 0; evicted < nr_victims && !room_for(t, need, freed); evicted++) {
		struct unwind_file *f = files[evicted];

		/* no longer named to the kernel side before the time that
		 * the retirement is stamped with */
		if (f->id.ino)
			unwind_maps_forget_file(&t->maps, &f->id);
		freed += f->table.nr_rows;
	}
	stamp = monotonic_ns();
	for (size_t i = 0; i < evicted; i++) {
		struct unwind_file *f = files[i];

		unwind_maps_retire(&t->maps, &f->table, stamp);
		t->files_evicted++;
		t->rows_evicted += f->table.nr_rows;
		f->evicted = true;
		hash_map_remove(&t->files, &f->key);
	}
	for (size_t i = 0; i < evicted; i++)
		free(files[i]);
	free(files);
	return room_for(t, need, 0);
}

/* f's table of nr rows is in the map now: the one it had (a first stage's)
 * retired, the kernel side told of it, the processes mapping it given it. */
static void loaded(struct unwind_tables *t, struct unwind_file *f,
		   const struct rt_unwind_slice *before, uint32_t nr)
{
	/* the kernel side told of the new table before the old one's
	 * retirement is stamped */
	if (f->id.ino)
		unwind_maps_add_file(&t->maps, &f->id, &f->table, f->exec_vaddr_delta);
	unwind_maps_retire(&t->maps, before, monotonic_ns());
	t->first_stage_rows += before->nr_rows;
	t->rows += nr;
	f->no_room = false;
	unwind_give_rows(t, f);
}

/* Tries the map; ENOSPC: none free holds the table. */
static int try_load(struct unwind_tables *t, struct unwind_file *f, const struct rt_unwind_row *rows,
		    uint32_t nr)
{
	struct rt_unwind_slice before = f->table, at;

	if (unwind_maps_add_rows(&t->maps, rows, nr, &at))
		return -errno;
	f->table = at;
	loaded(t, f, &before, nr);
	return 0;
}

/* f's table of nr rows found no room: counted once per file, and tried again
 * a while after (unwind_tables.c, retried). */
static void no_room(struct unwind_tables *t, struct unwind_file *f, uint32_t nr)
{
	t->files_without_room += !f->counted_no_room;
	f->counted_no_room = f->no_room = true;
	f->no_room_ns = monotonic_ns();
	f->rows_wanted = nr;
}

static int add_waiting(struct unwind_tables *t, struct unwind_file *f)
{
	if (t->nr_waiting == t->waiting_cap) {
		size_t cap = t->waiting_cap ? 2 * t->waiting_cap : 8;
		struct unwind_file **grown = realloc(t->waiting, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->waiting = grown;
		t->waiting_cap = cap;
	}
	t->waiting[t->nr_waiting++] = f;
	t->waiting_rows += f->nr_waiting_rows;
	return 0;
}

enum unwind_load unwind_load_rows(struct unwind_tables *t, struct unwind_file *f,
				  struct rt_unwind_row *rows, uint32_t nr, bool may_wait)
{
	int r = try_load(t, f, rows, nr);

	if (!r)
		return UNWIND_LOADED;
	if (r != -ENOSPC)
		return UNWIND_FAILED;
	/* the tables waiting already go first: room for theirs and this */
	if (may_wait && nr <= t->maps.capacity && t->waiting_rows + nr <= t->maps.capacity &&
	    evict_for(t, t->waiting_rows + nr, f) && t->maps.retired_rows) {
		f->waiting = rows;
		f->nr_waiting_rows = nr;
		if (!add_waiting(t, f))
			return UNWIND_WAITING;
		f->waiting = NULL;
	}
	no_room(t, f, nr);
	return UNWIND_NO_ROOM;
}

/* A waiting table's end: loaded (or failed to be), or without room after all. */
static void unwait(struct unwind_tables *t, struct unwind_file *f, bool without_room)
{
	if (without_room)
		no_room(t, f, f->nr_waiting_rows);
	t->waiting_rows -= f->nr_waiting_rows;
	free(f->waiting);
	f->waiting = NULL;
	f->nr_waiting_rows = 0;
}

void unwind_reclaim(struct unwind_tables *t, uint64_t until)
{
	size_t kept = 0;

	/* a process of the start's backlog, not tracked yet, may have been
	 * given rows by the kernel side (at its first sample): none reused
	 * until the backlog is through */
	if ((!t->maps.nr_retired && !t->nr_waiting) || t->queued_off < t->queued_len)
		return;
	unwind_maps_reclaim(&t->maps, until);
	for (size_t i = 0; i < t->nr_waiting; i++) {
		struct unwind_file *f = t->waiting[i];
		int r = try_load(t, f, f->waiting, f->nr_waiting_rows);

		if (!r || r != -ENOSPC) {
			unwait(t, f, false);
			t->files_without_table += r && !f->table.nr_rows;
			continue;
		}
		/* free rows enough, but in pieces: more evicted, or none */
		if (!evict_for(t, t->waiting_rows, f) || !t->maps.retired_rows) {
			unwait(t, f, true);
			continue;
		}
		t->waiting[kept++] = f;
	}
	t->nr_waiting = kept;
}

void unwind_waiting_free(struct unwind_tables *t)
{
	for (size_t i = 0; i < t->nr_waiting; i++)
		free(t->waiting[i]->waiting);
	free(t->waiting);
	t->waiting = NULL;
	t->nr_waiting = t->waiting_cap = 0;
}

/* Holds no table, nor is about to: nothing but its entry to forget, once
 * two prunes in a row found it unmapped (a second or more: whether a walk
 * met a deleted binary is asked when its deletion is seen, within 250 ms). */
static bool prunable(struct unwind_file *f, uint64_t epoch)
{
	if (f->mapped_epoch == epoch) {
		f->unmapped_prunes = 0;
		return false;
	}
	return !f->building && !f->waiting && !f->table.nr_rows && (f->deferred || f->ready) &&
	       ++f->unmapped_prunes >= 2;
}

void unwind_prune_unmapped(struct unwind_tables *t)
{
	struct unwind_file **files = (struct unwind_file **)hash_map_values(&t->files);
	uint64_t epoch = ++t->mark_epoch;
	size_t nr = t->files.len;

	if (!files)
		return;
	hash_map_each(&t->processes, mark_mapped, &epoch);
	for (size_t i = 0; i < nr; i++) {
		struct unwind_file *f = files[i];

		if (!prunable(f, epoch))
			continue;
		/* (a table-less file was told to the kernel side as such) */
		if (f->ready && f->id.ino)
			unwind_maps_forget_file(&t->maps, &f->id);
		hash_map_remove(&t->files, &f->key);
		t->files_pruned++;
		free(f->path);
		free(f);
	}
	free(files);
}
