/* SPDX-License-Identifier: GPL-2.0-only */
/* held_copies.c: copies held until a sample touches the file (see the
 * header): the held files, their ranges sorted by start (with the greatest
 * end up to each, for ranges that overlap: processes map files apart), and
 * an open-addressed set of the user pages no range took. */
#include "symbols/held_copies.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hash_map.h"

#define PAGE_SHIFT 12
/* User addresses are below it; the kernel's and perf's context markers
 * (PERF_CONTEXT_*, the top 4095 values) above. */
#define USER_END (1ULL << 63)
/* Slots of the page set: twice the pages it takes, a power of two. */
#define PAGE_SLOTS (2 * HELD_PAGES_MAX)

struct held_file {
	char name[96];
	int fd;       /* -1 once copied or closed */
	bool touched;
};

struct held_range {
	uint64_t start, end;
	uint64_t max_end; /* the greatest end of this range and those before */
	uint32_t file;
};

struct held_copies {
	pthread_mutex_t lock;
	struct file_copies *copies;
	struct held_file *files;
	size_t nr_files, max_files;
	struct hash_map by_name; /* name -> struct held_file index + 1 (as a pointer) */
	struct held_range *ranges;
	size_t nr_ranges, cap_ranges;
	uint64_t *pages; /* page + 1 of a user address no range took; 0: free */
	size_t nr_pages;
	bool at_once;    /* a bound passed: copy as files come */
	uint64_t last_page;
	struct held_copies_totals totals;
};

struct held_copies *held_copies_new(struct file_copies *copies)
{
	struct held_copies *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->files = calloc(HELD_FILES_MAX, sizeof(*h->files));
	h->pages = calloc(PAGE_SLOTS, sizeof(*h->pages));
	if (!h->files || !h->pages) {
		free(h->files);
		free(h->pages);
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	hash_map_init(&h->by_name, hash_string, equal_string);
	h->copies = copies;
	h->max_files = file_copies_held_max(HELD_FILES_MAX);
	h->last_page = UINT64_MAX;
	return h;
}

static uint64_t page_slot(uint64_t page)
{
	return (page * 0x9e3779b97f4a7c15ULL) >> 32 & (PAGE_SLOTS - 1);
}

static bool page_seen(const struct held_copies *h, uint64_t page)
{
	for (uint64_t i = page_slot(page);; i = (i + 1) & (PAGE_SLOTS - 1)) {
		if (!h->pages[i])
			return false;
		if (h->pages[i] == page + 1)
			return true;
	}
}

/* Copies f now (it was touched, or a bound passed). */
static void copy_now(struct held_copies *h, struct held_file *f)
{
	if (f->fd < 0)
		return;
	file_copies_submit(h->copies, f->fd, f->name, false);
	f->fd = -1;
}

/* A bound passed: every file held is copied, and those to come as they come. */
static void copy_all_from_now(struct held_copies *h)
{
	h->at_once = true;
	for (size_t i = 0; i < h->nr_files; i++)
		if (h->files[i].fd >= 0) {
			copy_now(h, &h->files[i]);
			h->totals.at_once++;
		}
}

static void remember_page(struct held_copies *h, uint64_t page)
{
	uint64_t i = page_slot(page);

	if (h->at_once)
		return;
	for (; h->pages[i]; i = (i + 1) & (PAGE_SLOTS - 1))
		if (h->pages[i] == page + 1)
			return;
	if (h->nr_pages >= HELD_PAGES_MAX) {
		copy_all_from_now(h);
		return;
	}
	h->pages[i] = page + 1;
	h->nr_pages++;
}

/* Whether a user page remembered lies in [start, end): the range's pages
 * looked up, or the set's walked, whichever is fewer. */
static bool range_seen(const struct held_copies *h, uint64_t start, uint64_t end)
{
	uint64_t first = start >> PAGE_SHIFT, last = (end - 1) >> PAGE_SHIFT;

	if (!h->nr_pages)
		return false;
	if (last - first < h->nr_pages) {
		for (uint64_t p = first; p <= last; p++)
			if (page_seen(h, p))
				return true;
		return false;
	}
	for (size_t i = 0; i < PAGE_SLOTS; i++)
		if (h->pages[i] && h->pages[i] - 1 >= first && h->pages[i] - 1 <= last)
			return true;
	return false;
}

/* Adds a range in start order, and the greatest ends from it on. */
static bool add_range(struct held_copies *h, uint64_t start, uint64_t end, uint32_t file)
{
	size_t at = h->nr_ranges;

	if (h->nr_ranges == h->cap_ranges) {
		size_t cap = h->cap_ranges ? 2 * h->cap_ranges : 64;
		struct held_range *grown = realloc(h->ranges, cap * sizeof(*grown));

		if (!grown)
			return false;
		h->ranges = grown;
		h->cap_ranges = cap;
	}
	while (at && h->ranges[at - 1].start > start)
		at--;
	memmove(&h->ranges[at + 1], &h->ranges[at], (h->nr_ranges - at) * sizeof(*h->ranges));
	h->ranges[at] = (struct held_range){ start, end, 0, file };
	h->nr_ranges++;
	for (size_t i = at; i < h->nr_ranges; i++)
		h->ranges[i].max_end = i && h->ranges[i - 1].max_end > h->ranges[i].end
					       ? h->ranges[i - 1].max_end
					       : h->ranges[i].end;
	return true;
}

/* f is mapped at [start, end) too: touched now if a sample was there. */
static void add_mapping(struct held_copies *h, struct held_file *f, uint64_t start, uint64_t end)
{
	if (!f->touched && (range_seen(h, start, end) ||
			    !add_range(h, start, end, (uint32_t)(f - h->files)))) {
		f->touched = true;
		h->totals.touched++;
		copy_now(h, f);
	}
}

bool held_copies_add_range(struct held_copies *h, const char *name, uint64_t start, uint64_t end)
{
	uintptr_t index;

	pthread_mutex_lock(&h->lock);
	index = (uintptr_t)hash_map_get(&h->by_name, name);
	if (index)
		add_mapping(h, &h->files[index - 1], start, end);
	pthread_mutex_unlock(&h->lock);
	return index != 0;
}

void held_copies_hold(struct held_copies *h, int fd, const char *name, uint64_t start,
		      uint64_t end)
{
	struct held_file *f = NULL;
	uintptr_t index;

	pthread_mutex_lock(&h->lock);
	index = (uintptr_t)hash_map_get(&h->by_name, name);
	if (index) {
		f = &h->files[index - 1];
		close(fd);
	} else if (h->at_once || h->nr_files >= h->max_files) {
		if (!h->at_once)
			copy_all_from_now(h);
		file_copies_submit(h->copies, fd, name, false);
		h->totals.at_once++;
		goto out;
	} else {
		f = &h->files[h->nr_files];
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->fd = fd;
		if (hash_map_put(&h->by_name, f->name, (void *)(uintptr_t)(h->nr_files + 1))) {
			copy_now(h, f); /* out of memory: as -a would */
			h->totals.at_once++;
			goto out;
		}
		h->nr_files++;
	}
	add_mapping(h, f, start, end);
out:
	pthread_mutex_unlock(&h->lock);
}

/* The file of a range holding addr, or NULL: the last range starting at or
 * before it, then back while an earlier one may still reach it. */
static struct held_file *file_at(struct held_copies *h, uint64_t addr)
{
	size_t lo = 0, hi = h->nr_ranges;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (h->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && h->ranges[lo].max_end > addr)
		if (h->ranges[lo].end > addr)
			return &h->files[h->ranges[lo].file];
	return NULL;
}

/* addr touches the file mapped there; a code address no range took is
 * remembered (remember), a word of a stack copy is not (most are data). */
static void touch(struct held_copies *h, uint64_t addr, bool remember)
{
	uint64_t page = addr >> PAGE_SHIFT;
	struct held_file *f;

	if (addr >= USER_END || page == h->last_page)
		return;
	f = file_at(h, addr);
	if (!f) {
		if (remember) {
			remember_page(h, page);
			h->last_page = page;
		}
	} else if (!f->touched) {
		f->touched = true;
		h->totals.touched++;
		copy_now(h, f);
	}
}

void held_copies_touch(struct held_copies *h, uint64_t ip, const uint64_t *chain, uint64_t nr,
		       const uint8_t *stack, uint64_t stack_size)
{
	pthread_mutex_lock(&h->lock);
	touch(h, ip, true);
	for (uint64_t i = 0; i < nr; i++)
		touch(h, chain[i], true);
	for (uint64_t at = 0; at + sizeof(uint64_t) <= stack_size && h->nr_ranges;
	     at += sizeof(uint64_t)) {
		uint64_t word;

		memcpy(&word, stack + at, sizeof(word));
		touch(h, word, false);
	}
	pthread_mutex_unlock(&h->lock);
}

void held_copies_finish(struct held_copies *h)
{
	pthread_mutex_lock(&h->lock);
	for (size_t i = 0; i < h->nr_files; i++) {
		struct held_file *f = &h->files[i];
		struct stat st;

		if (f->fd < 0)
			continue;
		if (!fstat(f->fd, &st))
			h->totals.untouched_bytes += (uint64_t)st.st_size;
		h->totals.untouched++;
		close(f->fd);
		f->fd = -1;
	}
	pthread_mutex_unlock(&h->lock);
}

void held_copies_get_totals(struct held_copies *h, struct held_copies_totals *t)
{
	pthread_mutex_lock(&h->lock);
	*t = h->totals;
	t->held = h->nr_files;
	pthread_mutex_unlock(&h->lock);
}

void held_copies_free(struct held_copies *h)
{
	if (!h)
		return;
	held_copies_finish(h);
	hash_map_free(&h->by_name);
	pthread_mutex_destroy(&h->lock);
	free(h->ranges);
	free(h->files);
	free(h->pages);
	free(h);
}
