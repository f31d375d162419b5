/* SPDX-License-Identifier: GPL-2.0-only */
/* input_file.c: one file of a recording read through a budget: its record
 * range checked against what the file holds on disk, then read whole when
 * small, else mapped and read in windows released behind the reader. */
#include "format/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/path_access.h"
#include "sys/safe_open.h"

/* Files up to this size are read into memory rather than mapped: cheaper
 * (mapping costs page faults, and unmapping a TLB flush on every CPU the
 * process runs on), and an overread of the buffer is an overread ASan sees. */
#define READ_LIMIT (1u << 20)
/* A record range over READ_LIMIT is sparse when the file's blocks hold less
 * than this fraction of it: far below what any filesystem's compression
 * makes of records, far above what a file truncated to a size makes. */
#define SPARSE_RATIO 64
/* A window's size, whatever the number of files read at once. */
#define WINDOW_MIN (64u << 10)
#define WINDOW_MAX (4u << 20)

/* What an empty range points at. */
static const uint8_t nothing[1];

static uint64_t page_size(void)
{
	static uint64_t size;

	if (!size)
		size = (uint64_t)sysconf(_SC_PAGESIZE);
	return size;
}

/* n bytes for a message: "100 GiB", "1.5 MiB", "80 KiB", "12 bytes". */
static const char *human(char *buf, size_t len, uint64_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)n;
	int u = -1, digits;

	if (n < 1024) {
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	/* one decimal, none when it is 0 */
	digits = (uint64_t)(v * 10 + 0.5) % 10 != 0;
	snprintf(buf, len, "%.*f %s", digits, v, units[u]);
	return buf;
}

static void close_fd(struct perf_input_file *f)
{
	if (f->fd_open)
		close(f->fd);
	f->fd_open = false;
	f->fd = -1;
}

void perf_input_file_unmap(struct perf_input_file *f)
{
	close_fd(f);
	free(f->whole);
	free(f->head);
	free(f->tail);
	if (f->mapping)
		munmap(f->mapping, f->mapping_size);
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void perf_input_cannot_open(const char *path, bool dir, char *err, size_t errlen)
{
	char cause[PATH_MAX + 192];

	if (errno != EACCES && errno != EPERM) {
		rt_format(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return;
	}
	/* recordings are their owner's alone (0700, 0600) */
	path_access_keeps_out(path, dir, cause, sizeof(cause));
	rt_format(err, errlen, "%s: cannot open: %s: read it as its owner or as root", path, cause);
}

int perf_input_file_open(int dirfd, const char *name, const char *display,
			 struct perf_input_file *f, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO planted in place of a file must not
	 * hang; it is refused below like anything that is not a regular file */
	int fd = dirfd >= 0 ? openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
			    : open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (fd < 0) {
		if (errno == ELOOP)
			rt_format(err, errlen, "%s: cannot open: it is a symbolic link", display);
		else
			perf_input_cannot_open(display, false, err, errlen);
		return -errno;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rt_format(err, errlen, "%s: not a regular file", display);
		close(fd);
		return -EINVAL;
	}
	f->path = strdup(display);
	if (!f->path) {
		rt_format(err, errlen, "out of memory");
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->fd_open = true;
	f->size = (uint64_t)st.st_size;
	f->mtime = (int64_t)st.st_mtime;
	return 0;
}

int perf_input_file_pread(struct perf_input_file *f, uint64_t offset, void *buf, size_t len,
			  char *err, size_t errlen)
{
	ssize_t got = safe_pread(f->fd, buf, len, (off_t)offset);

	if (got == (ssize_t)len)
		return 0;
	rt_format(err, errlen, "%s: cannot read: %s", f->path,
		  got < 0 ? strerror(errno) : "it shrank while being read");
	return got < 0 ? (int)got : -EIO;
}

/* Whether the file holds [start, end) on disk (see perf_input_file_place). */
static int check_on_disk(struct perf_input_file *f, const struct stat *st, uint64_t start,
			 uint64_t end, char *err, size_t errlen)
{
	uint64_t declared = end - start, on_disk = (uint64_t)st->st_blocks * 512;
	char d[32], o[32];
	off_t hole;

	if (!declared)
		return 0;
	/* where there is no hole, the file's end (a virtual hole); a
	 * filesystem without SEEK_HOLE says so too */
	hole = lseek(f->fd, (off_t)start, SEEK_HOLE);
	if (hole >= 0 && (uint64_t)hole < end) {
		rt_format(err, errlen, "%s: %s declared but only %s on disk (a sparse file, a hole at offset %llu): not read",
			  f->path, human(d, sizeof(d), declared), human(o, sizeof(o), on_disk),
			  (unsigned long long)hole);
		return -EINVAL;
	}
	if (declared > READ_LIMIT && on_disk < declared / SPARSE_RATIO) {
		rt_format(err, errlen, "%s: %s declared but only %s on disk (a sparse file): not read",
			  f->path, human(d, sizeof(d), declared), human(o, sizeof(o), on_disk));
		return -EINVAL;
	}
	return 0;
}

/* len bytes at offset into a buffer of their own (*out; NULL if len is 0). */
static int read_part(struct perf_input_file *f, uint64_t offset, uint64_t len, uint8_t **out,
		     char *err, size_t errlen)
{
	*out = NULL;
	if (!len)
		return 0;
	*out = malloc(len);
	if (!*out) {
		rt_format(err, errlen, "out of memory reading %s", f->path);
		return -ENOMEM;
	}
	return perf_input_file_pread(f, offset, *out, len, err, errlen);
}

/* [start, end) mapped from the page it starts in; no page read. */
static int map_range(struct perf_input_file *f, char *err, size_t errlen)
{
	uint64_t at = f->start - f->start % page_size();
	void *map;

	if (f->end == f->start) {
		f->data = nothing;
		return 0;
	}
	if (f->end - at > SIZE_MAX) {
		rt_format(err, errlen, "%s: too big to map", f->path);
		return -EFBIG;
	}
	map = mmap(NULL, f->end - at, PROT_READ, MAP_PRIVATE, f->fd, (off_t)at);
	if (map == MAP_FAILED) {
		rt_format(err, errlen, "%s: cannot map: %s", f->path, strerror(errno));
		return -errno;
	}
	(void)madvise(map, f->end - at, MADV_SEQUENTIAL);
	f->mapping = map;
	f->mapping_size = f->end - at;
	f->mapped_at = at;
	f->data = f->mapping + (f->start - at);
	return 0;
}

/* The header file's bytes before and after its data section, within
 * PERF_INPUT_HEADER_BUDGET. */
static int read_around(struct perf_input_file *f, char *err, size_t errlen)
{
	uint64_t outside = f->start + (f->size - f->end);
	char o[32];
	int ret;

	if (outside > PERF_INPUT_HEADER_BUDGET) {
		rt_format(err, errlen, "%s: %s outside its data section, over the %u MiB its attrs and features may take: not read",
			  f->path, human(o, sizeof(o), outside), PERF_INPUT_HEADER_BUDGET >> 20);
		return -EFBIG;
	}
	if ((ret = read_part(f, 0, f->start, &f->head, err, errlen)))
		return ret;
	f->head_size = f->start;
	if ((ret = read_part(f, f->end, f->size - f->end, &f->tail, err, errlen)))
		return ret;
	f->tail_size = f->size - f->end;
	return 0;
}

int perf_input_file_place(struct perf_input_file *f, uint64_t start, uint64_t end, bool around,
			  uint64_t *whole_budget, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (fstat(f->fd, &st)) {
		rt_format(err, errlen, "%s: cannot read: %s", f->path, strerror(errno));
		return -errno;
	}
	if ((ret = check_on_disk(f, &st, start, end, err, errlen)))
		return ret;
	f->start = start;
	f->end = end;
	if (!f->size) {
		f->data = nothing;
	} else if (f->size <= READ_LIMIT && f->size <= *whole_budget) {
		if ((ret = read_part(f, 0, f->size, &f->whole, err, errlen)))
			return ret;
		*whole_budget -= f->size;
		f->data = f->whole + start;
	} else if ((ret = map_range(f, err, errlen)) ||
		   (around && (ret = read_around(f, err, errlen)))) {
		return ret;
	}
	close_fd(f);
	return 0;
}

const uint8_t *perf_input_file_bytes(const struct perf_input_file *f, uint64_t offset,
				     uint64_t len)
{
	if (offset > f->size || len > f->size - offset)
		return NULL;
	if (!len)
		return nothing;
	if (f->whole)
		return f->whole + offset;
	if (offset >= f->start && offset <= f->end && len <= f->end - offset)
		return perf_input_file_at(f, offset);
	if (f->head && len <= f->head_size && offset <= f->head_size - len)
		return f->head + offset;
	if (f->tail && offset >= f->end && len <= f->tail_size &&
	    offset - f->end <= f->tail_size - len)
		return f->tail + (offset - f->end);
	return NULL;
}

void perf_input_window_init(struct perf_input_window *w, unsigned int nr_files)
{
	uint64_t size = PERF_INPUT_RESIDENT_BUDGET / 3 / (nr_files ? nr_files : 1);

	memset(w, 0, sizeof(*w));
	size = size < WINDOW_MIN ? WINDOW_MIN : size > WINDOW_MAX ? WINDOW_MAX : size;
	w->size = size - size % page_size();
}

void perf_input_window_enter(const struct perf_input_file *f, struct perf_input_window *w,
			     uint64_t pos)
{
	uint64_t rel, win, from, to;

	if (!f->mapping) {
		w->next = UINT64_MAX; /* read whole, or empty: nothing to do */
		return;
	}
	if (pos < w->next || pos < f->mapped_at)
		return;
	rel = pos - f->mapped_at;
	win = rel - rel % w->size;
	w->next = f->mapped_at + win + w->size;
	/* the window before this one is kept: the record just read may lie in it */
	if (win > w->size && win - w->size > w->released) {
		(void)madvise(f->mapping + w->released, win - w->size - w->released, MADV_DONTNEED);
		w->released = win - w->size;
	}
	/* this window and the next, mapped in a call each rather than a fault
	 * each 16 pages (before Linux 5.14, faults it is) */
	from = win > w->populated ? win : w->populated;
	to = win + 2 * w->size < f->mapping_size ? win + 2 * w->size : f->mapping_size;
	if (to > from) {
		(void)madvise(f->mapping + from, to - from, MADV_POPULATE_READ);
		w->populated = to;
	}
}

void perf_input_window_end(const struct perf_input_file *f, struct perf_input_window *w)
{
	uint64_t size = w->size;

	if (f->mapping)
		(void)madvise(f->mapping, f->mapping_size, MADV_DONTNEED);
	memset(w, 0, sizeof(*w));
	w->size = size;
}
