/* SPDX-License-Identifier: GPL-2.0-only */
/* safe_open.h: opens files other users control (mapped files, build-ids, /proc
 * files, pid files) read-only, regular files only, never blocking or steered. */
#ifndef RINGTRACE_SAFE_OPEN_H
#define RINGTRACE_SAFE_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

enum {
	/* the last component may be a symlink (or a magic link of /proc, such
	 * as /proc/PID/map_files/...); without it a symlink there is refused */
	SAFE_OPEN_FOLLOW = 1 << 0,
};

/*
 * Every function here looks at the file with O_PATH first (which never blocks
 * and runs no driver's open), and opens it for reading, non-blocking and
 * close-on-exec, only if it is a regular file. So a FIFO, a device, a socket
 * or a directory planted where a file was expected is refused at once. They
 * return an fd, or -errno (errno set too): ELOOP a symlink (or a path through
 * one, where refused), EISDIR a directory, EINVAL anything else that is not a
 * regular file, else open's errno. st, if not NULL, gets the file's fstat.
 */

/* Whether err (an errno of the functions here) says the file was refused:
 * not a regular file, a symlink, or not the file expected (ESTALE). */
bool safe_open_refused(int err);
/* What err means for these functions, for a message: "a symbolic link",
 * "not a regular file", ..., else strerror(err). */
const char *safe_open_strerror(int err);

/* Opens dirfd/path (dirfd AT_FDCWD: path as given); flags: SAFE_OPEN_*. */
int safe_openat(int dirfd, const char *path, unsigned int flags, struct stat *st);

/* Opens path resolved inside rootfd as if it were "/" (openat2 with
 * RESOLVE_IN_ROOT): ".." and absolute links never leave it, and no symlink
 * anywhere on the way is followed (RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS).
 * rootfd is typically /proc/PID/root opened with O_PATH | O_DIRECTORY.
 * ENOSYS before Linux 5.6. */
int safe_open_in_root(int rootfd, const char *path, struct stat *st);
/* path as safe_open_in_root opens it in this process's own root (none that
 * ends in " (deleted)"). */
int safe_open_in_own_root(const char *path, struct stat *st);

/* The file pid maps executable at [start, end) as path (a MMAP2 record's):
 * /proc/PID/map_files/START-END, the very inode mapped even when deleted or
 * replaced (it needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE); else path
 * inside /proc/PID/root as safe_open_in_root resolves it, never a path that
 * ends in " (deleted)"; with dev, if that root cannot be read (a process of
 * more privilege than ours), path as this process sees it, and if none of
 * those is the file, /proc/PID/exe (a program deleted since it started). If dev is not
 * NULL, the file must be that device (major, minor) and inode (ESTALE
 * otherwise): a path another file took over never stands for the one that
 * was mapped. */
struct safe_file_id {
	uint32_t maj, min;
	uint64_t ino;
};
int safe_open_mapping(uint32_t pid, uint64_t start, uint64_t end, const char *path,
		      const struct safe_file_id *dev, struct stat *st);
/* Starts a pass over the side-band: closes the mappings this thread opened
 * more than two seconds ago. From its first call on, a thread keeps what it
 * opens through map_files: a later safe_open_mapping naming the same inode
 * (dev) gets a copy of that descriptor for two seconds, one of the same pid,
 * start and end until the next call (sharing its offset: read it with
 * pread). */
void safe_open_mappings_forget(void);
/* Closes every mapping this thread kept, and keeps none from now on. */
void safe_open_mappings_close(void);

/* Reads up to len bytes of fd from offset off (retrying short reads and
 * EINTR, stopping at the end of the file): never more than len. Returns the
 * bytes read, or -errno (errno set too). */
ssize_t safe_pread(int fd, void *buf, size_t len, off_t off);

/* Reads at most len - 1 bytes of the regular file dirfd/path (no symlink as
 * its last component) into buf and NUL-terminates it: /proc/PID/comm, a pid
 * file. Returns the bytes read, or -errno (errno set too). */
ssize_t safe_read_file(int dirfd, const char *path, char *buf, size_t len);

/* A stdio stream (read, close-on-exec) on safe_openat(AT_FDCWD, path, 0):
 * /proc/PID/maps, read a bounded line at a time. NULL with errno. */
FILE *safe_fopen(const char *path);

#endif
