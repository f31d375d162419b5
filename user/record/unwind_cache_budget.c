/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_cache_budget.c: the unwind cache's size budget: what its directory
 * holds, counted by a bounded scan, the least recently used entries removed
 * to make room for a new one, and what one recording may add for files keyed
 * by inode (users' files) bounded. */
#include "record/unwind_cache_budget.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/dir_entries.h"

/* Names looked at in one scan, at most: the entries the directory may hold
 * and as many others (a directory filled by another version, or by other
 * recordings meanwhile); past them the scan stops, and the next one removes
 * among what it sees again. */
#define SCAN_MAX_NAMES (2 * UNWIND_CACHE_MAX_ENTRIES)
/* A temporary file younger than this may be one being written now: counted,
 * never removed; an older one was left by a recording killed while writing. */
#define TEMP_GRACE_SECONDS 60

/* What an entry of size bytes takes of the disk: whole 4 KiB blocks, as
 * du (and the kubelet's measure of a volume) counts them. */
static uint64_t disk_bytes(uint64_t size)
{
	return (size + 4095) & ~(uint64_t)4095;
}

static uint64_t stat_bytes(const struct stat *st)
{
	uint64_t blocks = (uint64_t)st->st_blocks * 512, size = disk_bytes((uint64_t)st->st_size);

	return blocks > size ? blocks : size;
}

static bool all_of(const char *s, const char *set)
{
	return *s && s[strspn(s, set)] == '\0';
}

bool cache_budget_our_name(const char *name)
{
	size_t len = strlen(name);

	if (len >= sizeof(((struct unwind_cache_key *)0)->name))
		return false;
	if (!strncmp(name, "b-", 2))
		return all_of(name + 2, "0123456789abcdef");
	if (!strncmp(name, "i-", 2))
		return all_of(name + 2, "0123456789abcdef.-");
	if (!strncmp(name, ".tmp-", 5))
		return all_of(name + 5, "0123456789-");
	return false;
}

void cache_budget_init(struct cache_budget *b, int dirfd, uint64_t budget)
{
	memset(b, 0, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
	b->dirfd = dirfd;
	b->budget = budget;
}

void cache_budget_destroy(struct cache_budget *b)
{
	pthread_mutex_destroy(&b->lock);
}

/* An entry a scan found that may be removed. */
struct candidate {
	char name[sizeof(((struct unwind_cache_key *)0)->name)];
	struct timespec mtime;
	uint64_t bytes;
};

struct scan {
	const char *adding;      /* the name about to be written (replaced, not removed) */
	struct candidate *c;
	size_t nr, cap;
	unsigned int names;
	uint64_t bytes;          /* every entry of ours, the one replaced excepted */
	uint32_t entries;
	time_t now;
};

/* A regular file of this user's under one of our names: its stat. */
static bool ours(int dirfd, const char *name, struct stat *st)
{
	return cache_budget_our_name(name) && !fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

static int scan_one(int dirfd, const char *name, void *ctx)
{
	struct scan *s = ctx;
	struct candidate *c;
	struct stat st;

	if (++s->names > SCAN_MAX_NAMES)
		return 1;
	if (!ours(dirfd, name, &st) || !strcmp(name, s->adding))
		return 0;
	s->bytes += stat_bytes(&st);
	s->entries++;
	if (name[0] == '.' && st.st_mtim.tv_sec > s->now - TEMP_GRACE_SECONDS)
		return 0;
	if (s->nr == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		c = realloc(s->c, cap * sizeof(*c));
		if (!c)
			return 0; /* counted, not a candidate */
		s->c = c;
		s->cap = cap;
	}
	c = &s->c[s->nr++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->mtime = st.st_mtim;
	c->bytes = stat_bytes(&st);
	return 0;
}

/* Least recently used first (oldest mtime; a hit sets it to now), then by name. */
static int older_first(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;

	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Removes c if it is still the file the scan saw (a regular file of ours,
 * not used since): its bytes, 0 if this call did not remove it; *gone if it
 * is not there any more (removed by this call, or by another recording). */
static uint64_t remove_entry(struct cache_budget *b, const struct candidate *c, bool *gone)
{
	struct stat st;

	*gone = false;
	if (fstatat(b->dirfd, c->name, &st, AT_SYMLINK_NOFOLLOW)) {
		*gone = errno == ENOENT;
		return 0;
	}
	/* (something else put there meanwhile, or read or written again: used) */
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_mtim.tv_sec != c->mtime.tv_sec || st.st_mtim.tv_nsec != c->mtime.tv_nsec)
		return 0;
	if (unlinkat(b->dirfd, c->name, 0)) {
		*gone = errno == ENOENT;
		return 0;
	}
	*gone = true;
	return stat_bytes(&st);
}

/* Counts what the directory holds (name, about to be written, excepted), and
 * removes the least recently used entries until need more bytes and one
 * more entry fit with an eighth of the budget to spare (or at least fit). */
static void make_room(struct cache_budget *b, const char *name, uint64_t need)
{
	struct scan s = { .adding = name, .now = time(NULL) };
	uint64_t low = b->budget - b->budget / 8;
	uint32_t low_entries = UNWIND_CACHE_MAX_ENTRIES - UNWIND_CACHE_MAX_ENTRIES / 8;

	if (dir_each_entry(b->dirfd, scan_one, &s) < 0) {
		free(s.c);
		return; /* unknown: tried again at the next write */
	}
	b->scanned = true;
	b->bytes = s.bytes;
	b->entries = s.entries;
	if (need > low)
		low = b->budget;
	if (b->bytes + need > low || b->entries + 1 > low_entries) {
		qsort(s.c, s.nr, sizeof(*s.c), older_first);
		for (size_t i = 0; i < s.nr && (b->bytes + need > low || b->entries + 1 > low_entries);
		     i++) {
			bool gone;
			uint64_t freed = remove_entry(b, &s.c[i], &gone);

			if (!gone)
				continue;
			b->bytes -= s.c[i].bytes < b->bytes ? s.c[i].bytes : b->bytes;
			b->entries -= b->entries > 0;
			if (freed) {
				b->counts.evicted++;
				b->counts.evicted_bytes += freed;
			}
		}
	}
	free(s.c);
}

bool cache_budget_reserve(struct cache_budget *b, const char *name, uint64_t size,
			  bool inode_keyed)
{
	uint64_t need = disk_bytes(size);
	bool fits;

	pthread_mutex_lock(&b->lock);
	if (inode_keyed && (b->share_bytes + need > b->budget / UNWIND_CACHE_SHARE_DIVISOR ||
			    b->share_entries + 1 > UNWIND_CACHE_MAX_ENTRIES / UNWIND_CACHE_SHARE_DIVISOR)) {
		b->counts.over_share++;
		pthread_mutex_unlock(&b->lock);
		return false;
	}
	if (need <= b->budget &&
	    (!b->scanned || b->bytes + need > b->budget || b->entries + 1 > UNWIND_CACHE_MAX_ENTRIES))
		make_room(b, name, need);
	fits = need <= b->budget && b->scanned && b->bytes + need <= b->budget &&
	       b->entries + 1 <= UNWIND_CACHE_MAX_ENTRIES;
	if (fits) {
		/* (a file of the same name it replaces still counts, until the
		 * next scan: more than there is, never less) */
		b->bytes += need;
		b->entries++;
		if (inode_keyed) {
			b->share_bytes += need;
			b->share_entries++;
		}
	} else {
		b->counts.no_room++;
	}
	pthread_mutex_unlock(&b->lock);
	return fits;
}

void cache_budget_done(struct cache_budget *b, uint64_t size, bool inode_keyed, bool kept)
{
	uint64_t need = disk_bytes(size);

	pthread_mutex_lock(&b->lock);
	if (kept) {
		b->counts.kept++;
	} else {
		b->bytes -= need < b->bytes ? need : b->bytes;
		b->entries -= b->entries > 0;
		if (inode_keyed) {
			b->share_bytes -= need;
			b->share_entries--;
		}
	}
	pthread_mutex_unlock(&b->lock);
}

void cache_budget_counts(struct cache_budget *b, struct unwind_cache_counts *out)
{
	pthread_mutex_lock(&b->lock);
	*out = b->counts;
	pthread_mutex_unlock(&b->lock);
}
