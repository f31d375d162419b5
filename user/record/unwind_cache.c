/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_cache.c: compiled unwind tables kept on disk between recordings, one
 * file each, named by build-id (or device, inode, mtime and size), used only
 * for the file (device, inode, change time, size) it was compiled from,
 * within a size budget (unwind_cache_budget.c). */
#include "record/unwind_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "lib/full_io.h"
#include "lib/log.h"
#include "lib/prefault.h"
#include "record/unwind_cache_budget.h"
#include "symbols/build_id.h"
#include "sys/private_dir.h"
#include "sys/safe_open.h"

#define CACHE_MAGIC "RTUNWIND"
/* Bumped whenever struct rt_unwind_row or the way rows are made changes. */
#define CACHE_VERSION 9u /* 2: rows from .debug_frame too; 3: rbx rules; 4: source;
			  * 5: .debug_frame's rows marked; 6: a return address in a register;
			  * 7: the entry point's gap outermost; 8: Go's runtime rules;
			  * 9: the checksum by XXH3 */

/* A cache file: this header, then nr_rows struct rt_unwind_row. */
struct cache_header {
	char magic[8];
	uint32_t version;
	uint32_t row_size;        /* sizeof(struct rt_unwind_row) */
	char key[sizeof(((struct unwind_cache_key *)0)->name)];
	uint32_t nr_rows;
	uint32_t pad;
	int64_t exec_vaddr_delta;
	struct unwind_cache_source source; /* the file the rows were compiled from */
	uint64_t checksum;        /* XXH3 of the rows, seeded with nr_rows */
};

struct unwind_cache {
	int dirfd;
	atomic_uint next_temp; /* temporary files' names: pid and this */
	struct cache_budget budget;
};

struct unwind_cache *unwind_cache_open(const char *path, uint64_t budget, char *err,
				       size_t errlen)
{
	enum private_dir_refusal why;
	int fd = private_dir_open(path, &why);
	struct unwind_cache *c;

	if (fd < 0) {
		if (why == PRIVATE_DIR_GOES_UP)
			rt_format(err, errlen, "the unwind cache %s goes up a directory (..): name it "
				  "without", path);
		else if (why == PRIVATE_DIR_NOT_OURS)
			rt_format(err, errlen,
				  "the unwind cache %s is not a directory of this user that no one "
				  "else may write: fix its owner and mode, or choose another with "
				  "--unwind-cache DIR|none", path);
		else
			rt_format(err, errlen, "cannot open the unwind cache %s: %s%s", path,
				  strerror(errno), errno == ELOOP || errno == ENOTDIR ?
				  " (a symlink or not a directory on the way)" : "");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		rt_format(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	c->dirfd = fd;
	cache_budget_init(&c->budget, fd, budget);
	return c;
}

void unwind_cache_close(struct unwind_cache *c)
{
	if (!c)
		return;
	cache_budget_destroy(&c->budget);
	close(c->dirfd);
	free(c);
}

void unwind_cache_counts(struct unwind_cache *c, struct unwind_cache_counts *out)
{
	cache_budget_counts(&c->budget, out);
}

static void hex(char *out, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bytes[i]);
}

int unwind_cache_key_of(int fd, struct unwind_cache_key *key)
{
	uint8_t id[BUILD_ID_MAX];
	ssize_t len;
	struct stat st;

	memset(key, 0, sizeof(*key));
	/* a file no path names (the vdso's copy in a memfd, a new inode each
	 * run; a deleted file) is not kept: no later run would find its table,
	 * and each run would leave one more */
	if (fstat(fd, &st) || !st.st_nlink)
		return -1;
	key->source = (struct unwind_cache_source){
		.dev = st.st_dev, .ino = st.st_ino, .ctime_sec = st.st_ctim.tv_sec,
		.ctime_nsec = st.st_ctim.tv_nsec, .size = st.st_size,
	};
	/* a build-id names the table every later run of every file with that
	 * build-id reads: only root's files that no one else may write name
	 * theirs by it, so that a user's file claiming a system library's
	 * build-id cannot leave its rows for the library's later runs */
	len = st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)) ? build_id_read(fd, id) : 0;
	if (len > 0 && (size_t)len <= sizeof(key->name) / 2 - 4) {
		memcpy(key->name, "b-", 2);
		hex(key->name + 2, id, (size_t)len);
		return 0;
	}
	snprintf(key->name, sizeof(key->name), "i-%llx-%llx-%lld.%09ld-%lld",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_size);
	return 0;
}

/* xxHash's XXH3: ~10 GB/s here, where FNV-1a a byte at a time took 14 ms
 * of cc1's 7.7 MB, most of the time its table took to come from the cache
 * (its process's first 10 ms unwound without it). */
static uint64_t checksum(const struct rt_unwind_row *rows, uint32_t nr)
{
	return XXH3_64bits_withSeed(rows, (size_t)nr * sizeof(*rows), nr);
}

int unwind_cache_load(struct unwind_cache *c, const struct unwind_cache_key *key,
		      struct rt_unwind_row **rows, uint32_t *nr, int64_t *exec_vaddr_delta)
{
	int fd = openat(c->dirfd, key->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct cache_header h;
	struct rt_unwind_row *r = NULL;
	struct stat st;
	size_t bytes;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !private_dir_ours_alone(&st) ||
	    (size_t)st.st_size < sizeof(h) || safe_pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, CACHE_MAGIC, sizeof(h.magic)) || h.version != CACHE_VERSION ||
	    h.row_size != sizeof(**rows) || memcmp(h.key, key->name, sizeof(h.key)) ||
	    memcmp(&h.source, &key->source, sizeof(h.source)) ||
	    !h.nr_rows || h.nr_rows > RT_UNWIND_MAX_ROWS ||
	    (uint64_t)st.st_size != sizeof(h) + (uint64_t)h.nr_rows * sizeof(**rows))
		goto miss;
	bytes = (size_t)h.nr_rows * sizeof(*r);
	r = malloc(bytes);
	/* in one call, not a page fault a page as the read fills it (cc1's
	 * 7.7 MB: 6 ms of faults, the table's process waiting for it) */
	if (r)
		prefault(r, bytes);
	if (!r || safe_pread(fd, r, bytes, sizeof(h)) != (ssize_t)bytes ||
	    checksum(r, h.nr_rows) != h.checksum)
		goto miss;
	/* used now: the last the budget evicts (a file's atime is not kept
	 * under noatime, and only now and then under relatime) */
	futimens(fd, (const struct timespec[2]){ { .tv_nsec = UTIME_OMIT },
						 { .tv_nsec = UTIME_NOW } });
	close(fd);
	*rows = r;
	*nr = h.nr_rows;
	*exec_vaddr_delta = h.exec_vaddr_delta;
	return 0;
miss:
	free(r);
	close(fd);
	return -1;
}

int unwind_cache_store(struct unwind_cache *c, const struct unwind_cache_key *key,
		       const struct rt_unwind_row *rows, uint32_t nr, int64_t exec_vaddr_delta)
{
	struct cache_header h = { .version = CACHE_VERSION, .row_size = sizeof(*rows),
				  .nr_rows = nr, .exec_vaddr_delta = exec_vaddr_delta };
	uint64_t size = sizeof(h) + (uint64_t)nr * sizeof(*rows);
	/* a user's file (or one others may write) is keyed by inode: what a
	 * recording keeps of those is bounded (a quarter of the budget) */
	bool inode_keyed = key->name[0] == 'i';
	char temp[64];
	bool ok;
	int fd;

	if (!nr || !cache_budget_reserve(&c->budget, key->name, size, inode_keyed))
		return -1;
	memcpy(h.magic, CACHE_MAGIC, sizeof(h.magic));
	memcpy(h.key, key->name, sizeof(h.key));
	h.source = key->source;
	h.checksum = checksum(rows, nr);
	snprintf(temp, sizeof(temp), ".tmp-%d-%u", (int)getpid(),
		 atomic_fetch_add(&c->next_temp, 1));
	fd = openat(c->dirfd, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		cache_budget_done(&c->budget, size, inode_keyed, false);
		return -1;
	}
	ok = !write_full(fd, &h, sizeof(h)) && !write_full(fd, rows, (size_t)nr * sizeof(*rows));
	if (close(fd))
		ok = false;
	/* in place at once: a reader sees the old file or the whole new one */
	if (!ok || renameat(c->dirfd, temp, c->dirfd, key->name)) {
		unlinkat(c->dirfd, temp, 0);
		cache_budget_done(&c->budget, size, inode_keyed, false);
		return -1;
	}
	cache_budget_done(&c->budget, size, inode_keyed, true);
	return 0;
}
