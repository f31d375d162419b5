/* SPDX-License-Identifier: GPL-2.0-only */
/* input_file.c: one file of a recording, mapped read-only, or read whole
 * when small; a FIFO, device or symlink planted in its place refused. */
#include "format/input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/safe_open.h"

/* Files up to this size are read into memory rather than mapped: cheaper
 * (mapping costs page faults, and unmapping a TLB flush on every CPU the
 * process runs on), and an overread of the buffer is an overread ASan sees. */
#define READ_LIMIT (1u << 20)

void perf_input_file_unmap(struct perf_input_file *f)
{
	if (f->map && f->heap)
		free((void *)f->map);
	else if (f->map)
		munmap((void *)f->map, f->map_size);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

/* The whole of a small file, into a buffer of exactly its size. */
static int read_whole(int fd, struct perf_input_file *f, const char *display, char *err,
		      size_t errlen)
{
	uint8_t *buf = malloc(f->map_size);
	ssize_t got;

	if (!buf) {
		rt_format(err, errlen, "out of memory reading %s", display);
		return -ENOMEM;
	}
	got = safe_pread(fd, buf, f->map_size, 0);
	if (got != (ssize_t)f->map_size) {
		rt_format(err, errlen, "%s: cannot read: %s", display,
			  got < 0 ? strerror(errno) : "it shrank while being read");
		free(buf);
		return got < 0 ? (int)got : -EIO;
	}
	f->map = buf;
	f->heap = true;
	return 0;
}

int perf_input_file_map(int dirfd, const char *name, const char *display, struct perf_input_file *f,
			char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO planted in place of a file must not
	 * hang; it is refused below like anything that is not a regular file */
	int fd = dirfd >= 0 ? openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
			    : open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	memset(f, 0, sizeof(*f));
	if (fd < 0) {
		rt_format(err, errlen, "%s: cannot open: %s", display,
			  errno == ELOOP ? "it is a symbolic link" : strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rt_format(err, errlen, "%s: not a regular file", display);
		close(fd);
		return -EINVAL;
	}
	f->map_size = (size_t)st.st_size;
	if (f->map_size && f->map_size <= READ_LIMIT) {
		int ret = read_whole(fd, f, display, err, errlen);

		if (ret) {
			close(fd);
			memset(f, 0, sizeof(*f));
			return ret;
		}
	} else if (f->map_size) {
		void *map = mmap(NULL, f->map_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);

		if (map == MAP_FAILED) {
			int e = errno;

			rt_format(err, errlen, "%s: cannot map: %s", display, strerror(errno));
			close(fd);
			memset(f, 0, sizeof(*f));
			return -e;
		}
		madvise(map, f->map_size, MADV_SEQUENTIAL);
		f->map = map;
	}
	close(fd);
	f->end = f->map_size;
	f->path = strdup(display);
	if (!f->path) {
		rt_format(err, errlen, "out of memory");
		perf_input_file_unmap(f);
		return -ENOMEM;
	}
	return 0;
}
