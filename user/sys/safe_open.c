/* SPDX-License-Identifier: GPL-2.0-only */
/* safe_open.c: opens files other users control (mapped files, build-ids, /proc
 * files, pid files) read-only, regular files only, never blocking or steered. */
#include "sys/safe_open.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/monotonic.h"
#include "sys/mapping_opener.h"

#define READ_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static void close_keep_errno(int fd)
{
	int saved = errno;

	close(fd);
	errno = saved;
}

bool safe_open_refused(int err)
{
	return err == ELOOP || err == EISDIR || err == EINVAL || err == ESTALE;
}

const char *safe_open_strerror(int err)
{
	switch (err) {
	case ELOOP:
		return "a symbolic link";
	case EISDIR:
		return "a directory";
	case EINVAL:
		return "not a regular file";
	case ESTALE:
		return "another file than the one expected (replaced)";
	default:
		return strerror(err);
	}
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Opens for reading the file pathfd (an O_PATH fd) stands for, if it is a
 * regular file; closes pathfd. The file is reopened through /proc/self/fd,
 * which names that very inode; without /proc mounted (report in a bare
 * container), dirfd/path is opened again, with the same rules, and must be
 * the same inode. path NULL: no such fallback.
 */
static int open_for_reading(int pathfd, int dirfd, const char *path, int nofollow,
			    struct stat *out)
{
	struct stat st, again;
	char self[64];
	int fd;

	if (fstat(pathfd, &st)) {
		close_keep_errno(pathfd);
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pathfd);
		errno = S_ISLNK(st.st_mode) ? ELOOP : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -errno;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pathfd);
	fd = open(self, READ_FLAGS);
	if (fd < 0 && errno == ENOENT && path)
		fd = openat(dirfd, path, READ_FLAGS | nofollow);
	close_keep_errno(pathfd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &again) || !S_ISREG(again.st_mode) || !same_file(&st, &again)) {
		close(fd);
		errno = ESTALE;
		return -errno;
	}
	if (out)
		*out = again;
	return fd;
}

int safe_openat(int dirfd, const char *path, unsigned int flags, struct stat *st)
{
	int nofollow = flags & SAFE_OPEN_FOLLOW ? 0 : O_NOFOLLOW;
	int pathfd = openat(dirfd, path, O_PATH | O_CLOEXEC | nofollow);

	if (pathfd < 0)
		return -errno;
	return open_for_reading(pathfd, dirfd, path, nofollow, st);
}

int safe_open_in_root(int rootfd, const char *path, struct stat *st)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long pathfd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));

	if (pathfd < 0)
		return -errno;
	return open_for_reading((int)pathfd, rootfd, NULL, 0, st);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* path inside pid's root directory, as safe_open_in_root opens it. */
static int open_in_process_root(uint32_t pid, const char *path, struct stat *st)
{
	char root[64];
	int rootfd, fd;

	if (path[0] != '/' || ends_with(path, " (deleted)")) {
		errno = ENOENT;
		return -errno;
	}
	snprintf(root, sizeof(root), "/proc/%u/root", pid);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = safe_open_in_root(rootfd, path, st);
	close_keep_errno(rootfd);
	return fd;
}

int safe_open_in_own_root(const char *path, struct stat *st)
{
	int rootfd, fd;

	if (path[0] != '/' || ends_with(path, " (deleted)")) {
		errno = ENOENT;
		return -errno;
	}
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = safe_open_in_root(rootfd, path, st);
	close_keep_errno(rootfd);
	return fd;
}

/* The mappings this thread opened lately: in this pass over the side-band
 * and, for MAPPING_KEPT_NS, the passes before it. One MMAP2 record's mapping
 * is opened for its build-id, then a pass or more later for the unwinder, the
 * walks it serves and the copies; an open of map_files is a call to the
 * thread that kept the capabilities, two context switches (tens of
 * microseconds on a VM). A caller that names the inode it expects gets a copy
 * of a descriptor of that very inode (held open, its number cannot be another
 * file's), however and for whichever process it was opened; one that does
 * not, a copy of this pass's open of the same pid, start and end only (a
 * range may be mapped anew after it). */
#define OPENED_MAPPINGS 32
#define MAPPING_KEPT_NS 2000000000ull
static __thread struct opened_mapping {
	uint32_t pid;
	uint64_t start, end;
	int fd; /* -1: none */
	struct stat st;
	uint64_t pass, opened_ns;
} opened[OPENED_MAPPINGS] = { [0 ... OPENED_MAPPINGS - 1] = { .fd = -1 } };
static __thread unsigned int next_opened;
static __thread uint64_t pass;
/* on in a thread that forgets them (passes over the side-band): any other
 * would hold its last ones open */
static __thread bool remember_opened;

static void forget_opened(uint64_t older_than_ns)
{
	for (unsigned int i = 0; i < OPENED_MAPPINGS; i++)
		if (opened[i].fd >= 0 && opened[i].opened_ns < older_than_ns) {
			close(opened[i].fd);
			opened[i].fd = -1;
		}
}

void safe_open_mappings_forget(void)
{
	uint64_t now = monotonic_ns();

	remember_opened = true;
	pass++;
	forget_opened(now > MAPPING_KEPT_NS ? now - MAPPING_KEPT_NS : 0);
}

void safe_open_mappings_close(void)
{
	forget_opened(UINT64_MAX);
	remember_opened = false;
}

/* A copy of a descriptor kept by opened[] (its stat in *st), or -1. */
static int opened_copy(const struct opened_mapping *o, struct stat *st)
{
	int fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);

	if (fd >= 0)
		*st = o->st;
	return fd;
}

/* A kept descriptor of the inode id names, or -1. */
static int opened_inode(const struct safe_file_id *id, struct stat *st)
{
	for (unsigned int i = 0; i < OPENED_MAPPINGS; i++) {
		const struct opened_mapping *o = &opened[i];

		if (o->fd >= 0 && (uint64_t)o->st.st_ino == id->ino &&
		    major(o->st.st_dev) == id->maj && minor(o->st.st_dev) == id->min)
			return opened_copy(o, st);
	}
	return -1;
}

/* /proc/PID/map_files/START-END opened (or this pass's earlier open of it
 * shared): fd and *st, or -errno with errno set. */
static int open_map_files(uint32_t pid, uint64_t start, uint64_t end, struct stat *st)
{
	struct opened_mapping *o;
	char link[96];
	int fd;

	for (unsigned int i = 0; i < OPENED_MAPPINGS; i++) {
		o = &opened[i];
		if (o->fd >= 0 && o->pass == pass && o->pid == pid && o->start == start &&
		    o->end == end) {
			fd = opened_copy(o, st);
			return fd < 0 ? -errno : fd;
		}
	}
	/* the thread that kept the capabilities map_files takes, if started
	 * (ours dropped), else ours */
	fd = mapping_opener_open(pid, start, end, st);
	if (fd == -ENOSYS) {
		snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx", pid,
			 (unsigned long long)start, (unsigned long long)end);
		fd = safe_openat(AT_FDCWD, link, SAFE_OPEN_FOLLOW, st);
	}
	if (fd < 0 || !remember_opened)
		return fd;
	o = &opened[next_opened++ % OPENED_MAPPINGS];
	if (o->fd >= 0)
		close(o->fd);
	*o = (struct opened_mapping){ pid, start, end, fcntl(fd, F_DUPFD_CLOEXEC, 0), *st, pass,
				      monotonic_ns() };
	return fd;
}

int safe_open_mapping(uint32_t pid, uint64_t start, uint64_t end, const char *path,
		      const struct safe_file_id *dev, struct stat *st)
{
	char link[96];
	struct stat s;
	int fd = dev && remember_opened ? opened_inode(dev, &s) : -1;

	if (fd < 0)
		fd = open_map_files(pid, start, end, &s);
	/* map_files needs CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE); a mapping
	 * that is not a regular file is refused, not looked up by its name */
	if (fd < 0 && safe_open_refused(errno))
		return -errno;
	if (fd < 0)
		fd = open_in_process_root(pid, path, &s);
	/* a process of higher privilege than ours (its root unreadable once our
	 * capabilities are dropped): the path as we see it, which the device
	 * and inode check below proves to be the same file, or refuses */
	if (fd < 0 && dev && (errno == EACCES || errno == EPERM))
		fd = safe_open_in_own_root(path, &s);
	/* a program deleted or replaced since it started, map_files closed to
	 * us (our capabilities dropped): its executable, /proc/PID/exe, which
	 * the check below proves to be the file mapped (a library is not) */
	if (fd < 0 && dev) {
		snprintf(link, sizeof(link), "/proc/%u/exe", pid);
		fd = safe_openat(AT_FDCWD, link, SAFE_OPEN_FOLLOW, &s);
	}
	if (fd < 0)
		return -errno;
	if (dev && (major(s.st_dev) != dev->maj || minor(s.st_dev) != dev->min ||
		    (uint64_t)s.st_ino != dev->ino)) {
		close(fd);
		errno = ESTALE;
		return -errno;
	}
	if (st)
		*st = s;
	return fd;
}

ssize_t safe_pread(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t safe_read_file(int dirfd, const char *path, char *buf, size_t len)
{
	int fd;
	ssize_t n;

	if (!len) {
		errno = EINVAL;
		return -errno;
	}
	fd = safe_openat(dirfd, path, 0, NULL);
	if (fd < 0)
		return -errno;
	n = safe_pread(fd, buf, len - 1, 0);
	close_keep_errno(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

FILE *safe_fopen(const char *path)
{
	int fd = safe_openat(AT_FDCWD, path, 0, NULL);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "re");

	if (fd >= 0 && !f)
		close_keep_errno(fd);
	return f;
}
