/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_on_demand.c: --unwind-tables sampled: the files the kernel side's
 * walks met without a table (the unwind_wanted map) opened again, proved the
 * same inode, and compiled; and, about once a second, the files without a
 * table that no tracked process maps forgotten. */
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/monotonic.h"
#include "record/unwind_eviction.h"
#include "record/unwind_tables_state.h"
#include "sys/safe_open.h"

/* A deferred file a walk met: opened again (by a mapping of it a tracked
 * process has, or else the last one seen), proved the same inode, and handed
 * to the builder before the start's backlog. */
static void compile_wanted(struct unwind_tables *t, struct unwind_file *f)
{
	struct safe_file_id dev = { (uint32_t)f->key.maj, (uint32_t)f->key.min, f->key.ino };
	uint64_t start = f->start, end = f->end;
	uint32_t pid = f->pid;
	struct stat st;
	int fd;

	unwind_find_mapping(t, f, &pid, &start, &end);
	fd = safe_open_mapping(pid, start, end, f->path, &dev, &st);
	f->deferred = false;
	free(f->path);
	f->path = NULL;
	if (fd < 0) {
		/* told to the kernel side as without a table (not wanted
		 * again), until no process maps it (unwind_prune_unmapped) */
		t->wanted_gone++;
		f->ready = true;
		unwind_without_table(t, f);
		return;
	}
	t->files_wanted++;
	f->ctime = st.st_ctim;
	f->urgent = true;
	unwind_submit(t, f, fd, true);
}

bool unwind_tables_file_met(void *tables, uint64_t maj, uint64_t min, uint64_t ino)
{
	struct unwind_tables *t = tables;
	struct file_key key = { .maj = maj, .min = min, .ino = ino };
	const struct unwind_file *f;

	if (!t->on || !t->on_demand)
		return true;
	/* the walks that met it before now have said so: taken first */
	unwind_serve_walks(t);
	f = hash_map_get(&t->files, &key);
	/* (a file not known: forgotten, evicted, never opened; said met) */
	return !f || !f->deferred;
}

/* Files wanted a pass, at most: the rest wait in the map for the next. */
#define WANTED_PER_PASS 64
/* How often the files without a table no process maps are forgotten. */
#define PRUNE_EVERY_NS 1000000000ull

void unwind_serve_walks(struct unwind_tables *t)
{
	struct rt_unwind_file_key ids[WANTED_PER_PASS];
	size_t n = unwind_maps_take_wanted(&t->maps, ids, WANTED_PER_PASS);

	for (size_t i = 0; i < n; i++) {
		struct unwind_file *f;
		struct file_key key;

		file_key_of_unwind_id(&key, &ids[i]);
		f = hash_map_get(&t->files, &key);
		if (f && f->deferred)
			compile_wanted(t, f);
	}
	if (monotonic_ns() - t->prune_ns >= PRUNE_EVERY_NS) {
		t->prune_ns = monotonic_ns();
		unwind_prune_unmapped(t);
	}
}
