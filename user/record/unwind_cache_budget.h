/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_cache_budget.h: the unwind cache's size budget: what its directory
 * holds, counted by a bounded scan, the least recently used entries removed
 * to make room for a new one, and what one recording may add for files keyed
 * by inode (users' files) bounded. */
#ifndef RINGTRACE_UNWIND_CACHE_BUDGET_H
#define RINGTRACE_UNWIND_CACHE_BUDGET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/unwind_cache.h"

struct cache_budget {
	pthread_mutex_t lock;
	int dirfd;
	uint64_t budget;      /* bytes of the directory's entries, at most */
	bool scanned;         /* bytes and entries known (a scan, and writes since) */
	uint64_t bytes;
	uint32_t entries;
	uint64_t share_bytes; /* kept by this recording for files keyed by inode */
	uint32_t share_entries;
	struct unwind_cache_counts counts;
};

void cache_budget_init(struct cache_budget *b, int dirfd, uint64_t budget);
void cache_budget_destroy(struct cache_budget *b);
/* Whether an entry of size bytes named name (keyed by inode: a user's file)
 * may be written now: room made for it within the budget, least recently
 * used entries (oldest mtime) removed first; false if it is not to be kept
 * (counted). Runs on the thread that stores (a builder's). */
bool cache_budget_reserve(struct cache_budget *b, const char *name, uint64_t size,
			  bool inode_keyed);
/* An entry reserved then not written after all (size and inode_keyed as
 * reserved); kept: it was. */
void cache_budget_done(struct cache_budget *b, uint64_t size, bool inode_keyed, bool kept);
void cache_budget_counts(struct cache_budget *b, struct unwind_cache_counts *out);
/* Whether name is one the cache gives its files: "b-HEX", "i-..." (device,
 * inode, mtime, size) or ".tmp-PID-N". */
bool cache_budget_our_name(const char *name);

#endif
