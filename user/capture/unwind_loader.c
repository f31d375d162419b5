/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_loader.c: writes unwind rows, their page index and processes'
 * executable mappings into the BPF sampler's maps, for the in-kernel unwinder
 * (--call-graph ehframe); a table's rows are taken from the free extents of
 * the rows map and given back, once retired, when no walk can use them. */
#include "capture/unwind_loader.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* An array map's values as mapped here: size bytes (pages rounded), or NULL. */
static void *map_array(int fd, size_t bytes, size_t *size)
{
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	*size = (bytes + (size_t)page - 1) & ~((size_t)page - 1);
	if (fd < 0 || !*size)
		return NULL;
	mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return mem == MAP_FAILED ? NULL : mem;
}

/* Whether an array map's values can be mapped here (BPF_F_MMAPABLE). */
static bool mappable(int fd)
{
	size_t size;
	void *mem = map_array(fd, 1, &size);

	if (!mem)
		return false;
	munmap(mem, size);
	return true;
}

/* Copies bytes bytes of src into an array map's values from byte at on,
 * through a window mapped for this write alone: the process holds the pages
 * only while it writes them (the rows map mapped whole for good was most of
 * a -g recording's RSS: 64 MiB by default, where perf record's is 27). 0, or
 * -errno. */
static int write_window(int fd, size_t at, const void *src, size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), start = at & ~(page - 1),
	       len = (at + bytes - start + page - 1) & ~(page - 1);
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);

	if (mem == MAP_FAILED)
		return -errno;
	memcpy(mem + (at - start), src, bytes);
	munmap(mem, len);
	return 0;
}

/* A table retired and when: its rows and index entries free after. */
struct retired_table {
	uint64_t stamp;
	uint32_t first_row, nr_rows, first_page, nr_pages;
};

int unwind_maps_init(struct unwind_maps *u, const struct bpf_sampler *s, uint32_t capacity)
{
	memset(u, 0, sizeof(*u));
	bpf_sampler_unwind_fds(s, &u->rows_fd, &u->pages_fd, &u->processes_fd, &u->files_fd,
			       &u->gen_fd, &u->wanted_fd);
	u->wanted_added = bpf_sampler_wanted_added(s);
	/* the walks keep copies of a process's mappings while its count is
	 * the same: without a way to add to it, no write of them is safe */
	u->gen_mem = map_array(u->gen_fd, RT_MAPPINGS_GEN_SLOTS * sizeof(*u->gen_mem),
			       &u->gen_mem_size);
	if (!u->gen_mem)
		return errno ? -errno : -EINVAL;
	u->capacity = capacity;
	u->pages_capacity = unwind_pages_for(capacity);
	u->rows_mappable = mappable(u->rows_fd);
	u->pages_mappable = mappable(u->pages_fd);
	if (extents_init(&u->rows_free, capacity) || extents_init(&u->pages_free, u->pages_capacity))
		return -ENOMEM;
	return 0;
}

uint32_t unwind_maps_rows_taken(const struct unwind_maps *u)
{
	return u->capacity - (uint32_t)u->rows_free.free_slots;
}

void unwind_maps_free(struct unwind_maps *u)
{
	if (u->gen_mem)
		munmap(u->gen_mem, u->gen_mem_size);
	u->gen_mem = NULL;
	extents_release(&u->rows_free);
	extents_release(&u->pages_free);
	free(u->retired);
	u->retired = NULL;
	u->nr_retired = u->retired_cap = 0;
}

void unwind_page_index(const struct rt_unwind_row *rows, uint32_t nr, uint32_t *pages,
		       struct rt_unwind_slice *t)
{
	uint64_t span = rows[nr - 1].pc - rows[0].pc, max = nr / RT_UNWIND_ROWS_PER_PAGE + 1;
	uint32_t shift = 0, row = 0;

	while ((span >> shift) + 1 > max)
		shift++;
	t->page_base = rows[0].pc;
	t->page_shift = shift;
	t->nr_pages = (uint32_t)(span >> shift) + 1;
	for (uint32_t p = 0; p < t->nr_pages; p++) {
		uint64_t at = (uint64_t)rows[0].pc + ((uint64_t)p << shift);

		while (row + 1 < nr && rows[row + 1].pc <= at)
			row++;
		pages[p] = row;
	}
}

/* Writes nr values of size bytes at index first of an array map. */
static int write_array(int fd, uint32_t first, const void *values, uint32_t nr, size_t size)
{
	uint32_t *keys = malloc((size_t)nr * sizeof(*keys));
	__u32 count = nr;
	int r;

	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++)
		keys[i] = first + i;
	r = bpf_map_update_batch(fd, keys, values, &count, NULL);
	/* a kernel without batched updates of arrays: one at a time */
	for (uint32_t i = 0; r && errno == EINVAL && i < nr; i++)
		if (bpf_map_update_elem(fd, &keys[i], (const char *)values + i * size, BPF_ANY))
			break;
		else if (i == nr - 1)
			r = 0;
	r = r ? -errno : 0;
	free(keys);
	return r;
}

/* nr page index entries at index first: mapped, each u32 in 8 bytes, as
 * the kernel lays out an array's values. */
static int write_pages(struct unwind_maps *u, uint32_t first, const uint32_t *pages, uint32_t nr)
{
	uint64_t *wide;
	int r;

	if (!u->pages_mappable || !(wide = malloc((size_t)nr * sizeof(*wide))))
		return write_array(u->pages_fd, first, pages, nr, sizeof(*pages));
	for (uint32_t i = 0; i < nr; i++)
		wide[i] = pages[i];
	r = write_window(u->pages_fd, (size_t)first * sizeof(*wide), wide, (size_t)nr * sizeof(*wide));
	free(wide);
	return r;
}

int unwind_maps_add_rows(struct unwind_maps *u, const struct rt_unwind_row *rows, uint32_t nr,
			 struct rt_unwind_slice *t)
{
	int64_t first = nr ? extents_alloc(&u->rows_free, nr) : -1, first_page;
	uint32_t *pages;
	int r;

	if (first < 0) {
		errno = ENOSPC;
		return -ENOSPC;
	}
	if (u->rows_mappable)
		r = write_window(u->rows_fd, (size_t)first * sizeof(*rows), rows,
				 (size_t)nr * sizeof(*rows));
	else
		r = write_array(u->rows_fd, (uint32_t)first, rows, nr, sizeof(*rows));
	if (r) {
		extents_free(&u->rows_free, (uint32_t)first, nr);
		return r;
	}
	memset(t, 0, sizeof(*t));
	t->first_row = (uint32_t)first;
	t->nr_rows = nr;
	/* the index is a speed-up: without room or memory the rows are
	 * searched whole */
	pages = malloc((nr / RT_UNWIND_ROWS_PER_PAGE + 1) * sizeof(*pages));
	if (pages) {
		unwind_page_index(rows, nr, pages, t);
		first_page = extents_alloc(&u->pages_free, t->nr_pages);
		if (first_page >= 0 && !write_pages(u, (uint32_t)first_page, pages, t->nr_pages)) {
			t->first_page = (uint32_t)first_page;
		} else {
			if (first_page >= 0)
				extents_free(&u->pages_free, (uint32_t)first_page, t->nr_pages);
			t->nr_pages = 0;
		}
		free(pages);
	}
	if (!t->nr_pages)
		u->without_index++;
	return 0;
}

void unwind_maps_retire(struct unwind_maps *u, const struct rt_unwind_slice *t, uint64_t stamp)
{
	if (!t->nr_rows)
		return;
	if (u->nr_retired == u->retired_cap) {
		size_t cap = u->retired_cap ? 2 * u->retired_cap : 16;
		struct retired_table *grown = realloc(u->retired, cap * sizeof(*grown));

		if (!grown) {
			u->slots_leaked += t->nr_rows;
			return;
		}
		u->retired = grown;
		u->retired_cap = cap;
	}
	u->retired[u->nr_retired++] = (struct retired_table){
		stamp, t->first_row, t->nr_rows, t->first_page, t->nr_pages,
	};
	u->retired_rows += t->nr_rows;
}

void unwind_maps_reclaim(struct unwind_maps *u, uint64_t until)
{
	size_t kept = 0;

	for (size_t i = 0; i < u->nr_retired; i++) {
		struct retired_table *r = &u->retired[i];

		/* (a free that finds no memory to split an extent leaves
		 * the slots taken: counted, never reused twice) */
		if (r->stamp > until) {
			u->retired[kept++] = *r;
			continue;
		}
		if (extents_free(&u->rows_free, r->first_row, r->nr_rows))
			u->slots_leaked += r->nr_rows;
		if (r->nr_pages)
			extents_free(&u->pages_free, r->first_page, r->nr_pages);
		u->retired_rows -= r->nr_rows;
	}
	u->nr_retired = kept;
}

void unwind_maps_add_file(struct unwind_maps *u, const struct rt_unwind_file_key *id,
			  const struct rt_unwind_slice *t, int64_t exec_vaddr_delta)
{
	struct rt_unwind_file f = { .table = *t, .exec_vaddr_delta = exec_vaddr_delta };

	bpf_map_update_elem(u->files_fd, id, &f, BPF_ANY);
}

void unwind_maps_forget_file(struct unwind_maps *u, const struct rt_unwind_file_key *id)
{
	bpf_map_delete_elem(u->files_fd, id);
}

size_t unwind_maps_take_wanted(struct unwind_maps *u, struct rt_unwind_file_key *ids, size_t max)
{
	uint64_t added = *u->wanted_added;
	size_t n = 0;

	/* nothing put in since it was found empty */
	if (added == u->wanted_emptied_at)
		return 0;
	/* the first key each time: the one before it is gone */
	while (n < max && u->wanted_fd >= 0) {
		if (bpf_map_get_next_key(u->wanted_fd, NULL, &ids[n])) {
			u->wanted_emptied_at = added;
			break;
		}
		if (bpf_map_delete_elem(u->wanted_fd, &ids[n]))
			break;
		n++;
	}
	return n;
}

/* After a write of pid's mappings: the walks' copies of them are stale. */
static void mappings_changed(struct unwind_maps *u, uint32_t pid)
{
	__atomic_fetch_add(&u->gen_mem[rt_mappings_gen_slot(pid)], 1, __ATOMIC_SEQ_CST);
}

int unwind_maps_set_process(struct unwind_maps *u, uint32_t pid,
			    const struct rt_process_mappings *pm)
{
	int r = bpf_map_update_elem(u->processes_fd, &pid, pm, BPF_ANY);

	mappings_changed(u, pid);
	return r;
}

void unwind_maps_forget_process(struct unwind_maps *u, uint32_t pid)
{
	bpf_map_delete_elem(u->processes_fd, &pid);
	mappings_changed(u, pid);
}
