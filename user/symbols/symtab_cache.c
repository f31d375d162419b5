/* SPDX-License-Identifier: GPL-2.0-only */
/* symtab_cache.c: ELF files' symbol tables kept between one process's
 * reports, by inode, shared while used, within a budget (see the header). */
#include "symbols/symtab_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash_map.h"
#include "symbols/symbols.h"

/* What a table was read from: the inode as it was, and the root and path it
 * was read as (they choose its debug file). */
struct cache_key {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	char *where; /* "ROOT\0PATH" */
	size_t where_len;
};

struct symtab_cache_entry {
	struct cache_key key;
	struct symtab table;
	size_t bytes;
	unsigned int users;     /* shared views not given back */
	uint64_t last_report;   /* the report that last used it */
	bool dropped;           /* out of the map, freed by its last user */
};

static struct {
	pthread_mutex_t lock;
	struct hash_map entries; /* cache_key -> cache_entry */
	bool init;
	size_t budget, bytes;
	unsigned int keep_reports;
	uint64_t report;
	struct symtab_cache_counts counts;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t hash_key(const void *p)
{
	const struct cache_key *k = p;
	uint64_t h = hash_bytes(&k->ino, sizeof(k->ino), (uint64_t)k->dev);

	h = hash_bytes(&k->mtime, sizeof(k->mtime), h ^ (uint64_t)k->size);
	return hash_bytes(k->where, k->where_len, h);
}

static bool equal_key(const void *a, const void *b)
{
	const struct cache_key *x = a, *y = b;

	return x->dev == y->dev && x->ino == y->ino && x->size == y->size &&
	       x->mtime.tv_sec == y->mtime.tv_sec && x->mtime.tv_nsec == y->mtime.tv_nsec &&
	       x->ctime.tv_sec == y->ctime.tv_sec && x->ctime.tv_nsec == y->ctime.tv_nsec &&
	       x->where_len == y->where_len && !memcmp(x->where, y->where, x->where_len);
}

/* The key of st read as root and path; where points into buf (or is NULL:
 * too long to be kept). */
static struct cache_key key_of(const struct stat *st, const char *root, const char *path,
			       char *buf, size_t cap)
{
	size_t r = strlen(root), p = strlen(path);
	struct cache_key k = { st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim,
			       NULL, r + 1 + p };

	if (k.where_len <= cap) {
		memcpy(buf, root, r + 1);
		memcpy(buf + r + 1, path, p);
		k.where = buf;
	}
	return k;
}

/* What a table takes, its names demangled so far included (they come as
 * reports name its frames). */
static size_t table_bytes(const struct symtab *t)
{
	return sizeof(struct symtab_cache_entry) + t->nr * sizeof(*t->syms) +
	       (t->tree ? 2 * t->nr * sizeof(*t->tree) : 0) + t->names_len +
	       t->nr_segments * sizeof(*t->segments) + symtab_demangled_bytes(t);
}

static void entry_free(struct symtab_cache_entry *e)
{
	e->table.cached = NULL;
	symtab_free(&e->table);
	free(e->key.where);
	free(e);
}

/* Out of the map and the budget; freed now, or by its last user. */
static void drop(struct symtab_cache_entry *e)
{
	hash_map_remove(&cache.entries, &e->key);
	cache.bytes -= e->bytes;
	e->dropped = true;
	if (!e->users)
		entry_free(e);
}

void symtab_cache_configure(size_t budget_bytes, unsigned int keep_reports)
{
	pthread_mutex_lock(&cache.lock);
	if (!cache.init) {
		hash_map_init(&cache.entries, hash_key, equal_key);
		cache.init = true;
	}
	cache.budget = budget_bytes;
	cache.keep_reports = keep_reports ? keep_reports : 1;
	pthread_mutex_unlock(&cache.lock);
	symtab_cache_report_ends();
}

struct stale {
	struct symtab_cache_entry **list;
	size_t nr;
};

static void collect_stale(void *value, void *ctx)
{
	struct symtab_cache_entry *e = value;
	struct stale *s = ctx;

	if (!cache.budget || cache.report - e->last_report >= cache.keep_reports)
		s->list[s->nr++] = e;
}

/* Each entry's bytes as they are now (names demangled since it was kept),
 * and the entry collected. */
static void collect_grown(void *value, void *ctx)
{
	struct symtab_cache_entry *e = value;
	struct stale *s = ctx;
	size_t now = table_bytes(&e->table);

	cache.bytes += now - e->bytes;
	e->bytes = now;
	s->list[s->nr++] = e;
}

static int used_earlier(const void *a, const void *b)
{
	const struct symtab_cache_entry *x = *(struct symtab_cache_entry *const *)a;
	const struct symtab_cache_entry *y = *(struct symtab_cache_entry *const *)b;

	return x->last_report < y->last_report ? -1 : x->last_report > y->last_report;
}

/* Names demangled as reports named frames grow the tables kept: past the
 * budget, those used longest ago go. */
static void drop_over_budget(void)
{
	struct stale s = { NULL, 0 };

	if (!cache.init || !cache.entries.len ||
	    !(s.list = malloc(cache.entries.len * sizeof(*s.list))))
		return;
	hash_map_each(&cache.entries, collect_grown, &s);
	if (cache.bytes > cache.budget) {
		qsort(s.list, s.nr, sizeof(*s.list), used_earlier);
		for (size_t i = 0; i < s.nr && cache.bytes > cache.budget; i++) {
			drop(s.list[i]);
			cache.counts.over_budget++;
		}
	}
	free(s.list);
}

void symtab_cache_report_begins(void)
{
	pthread_mutex_lock(&cache.lock);
	cache.report++;
	pthread_mutex_unlock(&cache.lock);
}

void symtab_cache_report_ends(void)
{
	struct stale s = { NULL, 0 };

	pthread_mutex_lock(&cache.lock);
	if (cache.init && cache.entries.len &&
	    (s.list = malloc(cache.entries.len * sizeof(*s.list)))) {
		hash_map_each(&cache.entries, collect_stale, &s);
		for (size_t i = 0; i < s.nr; i++)
			drop(s.list[i]);
		cache.counts.dropped += s.nr;
		free(s.list);
	}
	drop_over_budget();
	pthread_mutex_unlock(&cache.lock);
}

void symtab_cache_counts(struct symtab_cache_counts *c)
{
	pthread_mutex_lock(&cache.lock);
	*c = cache.counts;
	c->entries = cache.init ? cache.entries.len : 0;
	c->bytes = cache.bytes;
	c->budget = cache.budget;
	pthread_mutex_unlock(&cache.lock);
}

static void share(struct symtab_cache_entry *e, struct symtab *t)
{
	*t = e->table;
	t->cached = e;
	e->users++;
	e->last_report = cache.report;
}

bool symtab_cache_find(const struct stat *st, const char *root, const char *path,
		       struct symtab *t)
{
	char buf[8192];
	struct cache_key k = key_of(st, root, path, buf, sizeof(buf));
	struct symtab_cache_entry *e = NULL;

	pthread_mutex_lock(&cache.lock);
	if (cache.budget && k.where) {
		e = hash_map_get(&cache.entries, &k);
		if (e)
			share(e, t);
		*(e ? &cache.counts.hits : &cache.counts.misses) += 1;
	}
	pthread_mutex_unlock(&cache.lock);
	return e != NULL;
}

void symtab_cache_keep(const struct stat *st, const char *root, const char *path,
		       struct symtab *t)
{
	char buf[8192];
	struct cache_key k = key_of(st, root, path, buf, sizeof(buf));
	size_t bytes = table_bytes(t);
	struct symtab_cache_entry *e;
	char *where;

	pthread_mutex_lock(&cache.lock);
	if (!cache.budget || !k.where || hash_map_get(&cache.entries, &k))
		goto out;
	if (cache.bytes + bytes > cache.budget) {
		cache.counts.over_budget++;
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(where = malloc(k.where_len))) {
		free(e);
		goto out;
	}
	/* the key, its root and path in memory of the entry's own */
	e->key = k;
	e->key.where = memcpy(where, k.where, k.where_len);
	e->table = *t;
	e->bytes = bytes;
	if (hash_map_put(&cache.entries, &e->key, e)) {
		free(e->key.where);
		free(e);
		goto out;
	}
	cache.bytes += bytes;
	share(e, t);
out:
	pthread_mutex_unlock(&cache.lock);
}

void symtab_cache_release(struct symtab *t)
{
	struct symtab_cache_entry *e = t->cached;

	pthread_mutex_lock(&cache.lock);
	if (!--e->users && e->dropped)
		entry_free(e);
	pthread_mutex_unlock(&cache.lock);
	memset(t, 0, sizeof(*t));
}
