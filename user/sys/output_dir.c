/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir.c: the recording's output directory and the files in it, made
 * without following symlinks, locked while in use, never reused blindly. */
#include "sys/output_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/dir_entries.h"
#include "sys/output_dir_entries.h"

/* An entry a recording killed before it wrote its header leaves: its
 * streams, its pid file, copies of binaries, snapshots never completed. */
static int abandoned_entry(int dirfd, const char *name, void *ctx)
{
	unsigned int *streams = ctx;
	struct stat st;
	int fd;

	if (!strcmp(name, "data"))
		return 1; /* a header: a recording perf can read */
	if (output_entry_is_data(name)) {
		(*streams)++;
		return 0;
	}
	if (!strcmp(name, OUTPUT_PID_FILE) || !strcmp(name, OUTPUT_COUNTS_FILE) ||
	    !strcmp(name, OUTPUT_COUNTS_NEW_FILE) || !strcmp(name, BUILD_ID_DIR) ||
	    !strcmp(name, BUILD_ID_NS_DIR) || output_entry_is_jit_map(name))
		return 0;
	if (strncmp(name, "snapshot-", 9))
		return 1; /* not ringtrace's */
	fd = output_subdir_open(dirfd, name);
	if (fd < 0)
		return 1;
	/* a snapshot's accounting is written last: with it, it is complete */
	if (!fstatat(fd, "accounting", &st, AT_SYMLINK_NOFOLLOW)) {
		close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

/* Whether an unlocked directory holds nothing of value and is a recording's:
 * only what a recording killed early left (its streams, but no header and no
 * complete snapshot). An empty directory is nobody's leftover: refused. */
static bool is_abandoned(int dirfd)
{
	unsigned int streams = 0;

	return dir_each_entry(dirfd, abandoned_entry, &streams) == 0 && streams > 0;
}

/* Opens path as a real directory owned by the caller. */
static int open_owned_dir(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		rt_format(err, errlen, "cannot open output directory %s: %s", path,
			  errno == ELOOP || errno == ENOTDIR ? "not a real directory (a symlink or a file)"
							     : strerror(errno));
		return -errno;
	}
	if (fstat(fd, st) || !S_ISDIR(st->st_mode) || st->st_uid != geteuid()) {
		rt_format(err, errlen, "output directory %s is not a directory owned by you: choose another with -o",
			  path);
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int lock_dir(int fd, const char *path, char *err, size_t errlen)
{
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno == EWOULDBLOCK)
		rt_format(err, errlen, "output directory %s is in use by another ringtrace recording: choose another with -o",
			  path);
	else
		rt_format(err, errlen, "cannot lock output directory %s: %s", path, strerror(errno));
	return -errno;
}

/* Removes DIR/.replaced and what it holds (a recording's entries). */
static int remove_replaced(int dirfd, const char *path, char *err, size_t errlen)
{
	int fd = output_subdir_open(dirfd, REPLACED_DIR);

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		rt_format(err, errlen, "%s/%s: cannot open: %s", path, REPLACED_DIR, strerror(errno));
		return -errno;
	}
	output_entries_clear(fd, path, err, errlen);
	output_build_ids_remove(fd);
	close(fd);
	if (unlinkat(dirfd, REPLACED_DIR, AT_REMOVEDIR)) {
		rt_format(err, errlen, "%s/%s: cannot remove: %s (it holds files ringtrace did not write)",
			  path, REPLACED_DIR, strerror(errno));
		return -errno;
	}
	return 0;
}

struct moving {
	int to;
	const char *path;
	char *err;
	size_t errlen;
	int error; /* errno of what could not be moved */
};

static int move_entry(int dirfd, const char *name, void *ctx)
{
	struct moving *m = ctx;

	if (!output_entry_is_ours(name) || !renameat(dirfd, name, m->to, name))
		return 0;
	m->error = errno;
	rt_format(m->err, m->errlen, "%s/%s: cannot set aside: %s", m->path, name, strerror(errno));
	return 1;
}

/* --force: the recording in the directory is moved into DIR/.replaced (one
 * left by a start that was killed is removed first), removed once the new
 * recording has started and put back if it does not start. */
static int set_aside(struct output_dir *d, char *err, size_t errlen)
{
	struct moving m = { -1, d->path, err, errlen, 0 };
	int r;

	if ((r = remove_replaced(d->fd, d->path, err, errlen)))
		return r;
	if (mkdirat(d->fd, REPLACED_DIR, 0700) ||
	    (m.to = output_subdir_open(d->fd, REPLACED_DIR)) < 0) {
		rt_format(err, errlen, "%s/%s: cannot create: %s", d->path, REPLACED_DIR,
			  strerror(errno));
		return -errno;
	}
	err[0] = '\0';
	r = dir_each_entry(d->fd, move_entry, &m);
	close(m.to);
	if (r < 0 && !err[0])
		rt_format(err, errlen, "%s: cannot list: %s", d->path, strerror(-r));
	d->set_aside = true;
	return r < 0 ? r : r ? -m.error : 0;
}

/* What set_aside moved goes back where it was. */
static void put_back(struct output_dir *d)
{
	char err[256];
	struct moving m = { d->fd, d->path, err, sizeof(err), 0 };
	int fd = output_subdir_open(d->fd, REPLACED_DIR);

	if (fd < 0)
		return;
	dir_each_entry(fd, move_entry, &m);
	close(fd);
	unlinkat(d->fd, REPLACED_DIR, AT_REMOVEDIR);
	d->set_aside = false;
}

/* d->path, gone (removed or moved away), made again empty, 0700, and
 * opened and locked in d. */
static int make_again(struct output_dir *d, char *err, size_t errlen)
{
	struct stat st;

	close(d->fd);
	d->fd = -1;
	if (mkdir(d->path, 0700)) {
		rt_format(err, errlen, "cannot create output directory %s: %s", d->path,
			  strerror(errno));
		return -errno;
	}
	d->created = true;
	d->fd = open_owned_dir(d->path, &st, err, errlen);
	return d->fd < 0 ? d->fd : lock_dir(d->fd, d->path, err, errlen);
}

static int recording_entry(int dirfd, const char *name, void *ctx)
{
	bool *header = ctx;

	(void)dirfd;
	if (!strcmp(name, "data"))
		*header = true;
	return output_entry_is_ours(name) || !strcmp(name, REPLACED_DIR) ? 0 : 1;
}

/* Whether a directory holds a recording (its header) and nothing a
 * recording does not write. */
static bool is_recording(int dirfd)
{
	bool header = false;

	return dir_each_entry(dirfd, recording_entry, &header) == 0 && header;
}

/* Removes the recording directory path/name, fd open on it: what recordings
 * write, then the directory (anything else in it makes that fail). */
static int remove_recording(int fd, const char *path, char *err, size_t errlen)
{
	int r;

	if ((r = output_entries_clear(fd, path, err, errlen)) ||
	    (r = remove_replaced(fd, path, err, errlen)))
		return r;
	output_build_ids_remove(fd);
	if (rmdir(path)) {
		rt_format(err, errlen, "cannot remove the old recording %s: %s", path,
			  strerror(errno));
		return -errno;
	}
	return 0;
}

/* path without its trailing slashes, and ".old": the name perf gives the
 * recording a new one replaces. */
static int old_name(const char *path, char *old, size_t size, char *err, size_t errlen)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if ((size_t)snprintf(old, size, "%.*s.old", (int)n, path) >= size) {
		rt_format(err, errlen, "output directory %s: its name is too long to keep the recording in it as .old",
			  path);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* perf's habit: the recording at d->path becomes PATH.old (the one there
 * before is removed; anything else there is refused), and d->path is made
 * again, empty. */
static int move_to_old(struct output_dir *d, char *err, size_t errlen)
{
	char old[4096];
	struct stat st;
	int fd, r;

	if ((r = old_name(d->path, old, sizeof(old), err, errlen)))
		return r;
	fd = open(old, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno != ENOENT) {
		rt_format(err, errlen, "%s exists and is not a real directory: remove it, or pass --force to replace %s",
			  old, d->path);
		return -EEXIST;
	}
	if (fd >= 0) {
		if (fstat(fd, &st) || st.st_uid != geteuid() || flock(fd, LOCK_EX | LOCK_NB) ||
		    !is_recording(fd)) {
			rt_format(err, errlen, "%s exists and is not a recording of yours: remove it, or pass --force to replace %s",
				  old, d->path);
			close(fd);
			return -EEXIST;
		}
		r = remove_recording(fd, old, err, errlen);
		close(fd);
		if (r)
			return r;
	}
	if (rename(d->path, old)) {
		rt_format(err, errlen, "cannot move the recording in %s to %s: %s", d->path, old,
			  strerror(errno));
		return -errno;
	}
	return make_again(d, err, errlen);
}

int output_dir_check(const char *path, bool force, char *err, size_t errlen)
{
	struct stat st;
	int fd;
	bool reusable;

	if (force || lstat(path, &st))
		return 0; /* what cannot be used is said when it is opened */
	if (!S_ISDIR(st.st_mode)) {
		rt_format(err, errlen, "output %s exists and is not a directory: choose another with -o",
			  path);
		return -ENOTDIR;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/* a recording of ours is moved to PATH.old when this one opens */
	reusable = st.st_uid == geteuid() && !flock(fd, LOCK_EX | LOCK_NB) &&
		   (is_abandoned(fd) || is_recording(fd));
	close(fd);
	if (!reusable) {
		rt_format(err, errlen, "output directory %s already exists and is not a recording: remove it, choose another with -o, or pass --force",
			  path);
		return -EEXIST;
	}
	return 0;
}

/* A reused directory whose mode lets others in is made again, 0700: what
 * others may have put into it is not kept. */
static int remake_private(struct output_dir *d, struct stat *st, char *err, size_t errlen)
{
	if (output_build_ids_remove(d->fd) && errno != ENOENT) {
		rt_format(err, errlen, "%s/%s: cannot remove: %s", d->path, BUILD_ID_DIR,
			  strerror(errno));
		return -errno;
	}
	if (rmdir(d->path)) {
		rt_format(err, errlen, "output directory %s has mode %03o and holds files ringtrace did not write: remove it or choose another with -o",
			  d->path, (unsigned int)(st->st_mode & 0777));
		return -errno;
	}
	return make_again(d, err, errlen);
}

int output_dir_open(struct output_dir *d, const char *path, bool force, char *err,
		    size_t errlen)
{
	struct stat st;
	int ret;

	*d = (struct output_dir){ .fd = -1, .path = path };
	d->created = !mkdir(path, 0700);
	if (!d->created && errno != EEXIST) {
		rt_format(err, errlen, "cannot create output directory %s: %s", path, strerror(errno));
		return -errno;
	}
	d->fd = open_owned_dir(path, &st, err, errlen);
	if ((ret = d->fd) < 0 || (ret = lock_dir(d->fd, path, err, errlen)))
		goto fail;
	if (d->created)
		return 0;
	if (!force && !is_abandoned(d->fd)) {
		/* a recording is kept as PATH.old, as perf keeps perf.data.old */
		if (is_recording(d->fd)) {
			if ((ret = move_to_old(d, err, errlen)))
				goto fail;
			return 0;
		}
		rt_format(err, errlen, "output directory %s already exists and is not a recording: remove it, choose another with -o, or pass --force",
			  path);
		ret = -EEXIST;
		goto fail;
	}
	/* one others could write into is made again, nothing of it kept */
	if ((st.st_mode & 0777) != 0700) {
		if ((ret = output_entries_clear(d->fd, path, err, errlen)) ||
		    (ret = remove_replaced(d->fd, path, err, errlen)) ||
		    (ret = remake_private(d, &st, err, errlen)))
			goto fail;
		return 0;
	}
	/* a recording (--force) is kept until this one starts; what a start
	 * killed early left is removed */
	if ((ret = force && !is_abandoned(d->fd) ? set_aside(d, err, errlen)
						  : output_entries_clear(d->fd, path, err, errlen)))
		goto fail;
	return 0;
fail:
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	d->created = false;
	return ret;
}

void output_dir_discard(struct output_dir *d)
{
	char err[256];

	if (d->fd < 0)
		return;
	output_entries_clear(d->fd, d->path, err, sizeof(err));
	if (d->set_aside) {
		output_build_ids_remove(d->fd);
		put_back(d);
	}
	if (d->created) {
		output_build_ids_remove(d->fd);
		rmdir(d->path);
	}
	output_dir_close(d);
}

static void *remove_set_aside(void *arg)
{
	struct output_dir *d = arg;

	d->removed = remove_replaced(d->fd, d->path, d->remove_error, sizeof(d->remove_error));
	return NULL;
}

void output_dir_removal_wait(struct output_dir *d)
{
	if (d->removing) {
		pthread_join(d->remover, NULL);
		d->removing = false;
	}
	if (d->set_aside && d->removed)
		rt_warn("%s", d->remove_error);
	d->set_aside = false;
}

void output_dir_started(struct output_dir *d)
{
	if (d->fd < 0 || !d->set_aside)
		return;
	if (!pthread_create(&d->remover, NULL, remove_set_aside, d)) {
		pthread_setname_np(d->remover, "rt-remove");
		d->removing = true;
		return;
	}
	remove_set_aside(d);
	output_dir_removal_wait(d);
}

void output_dir_close(struct output_dir *d)
{
	if (d->fd >= 0) {
		output_dir_removal_wait(d);
		close(d->fd);
	}
	d->fd = -1;
}

int output_subdir_create(int dirfd, const char *dirpath, const char *name, char *err,
			 size_t errlen)
{
	int fd;

	if (mkdirat(dirfd, name, 0700)) {
		rt_format(err, errlen, "cannot create %s/%s: %s", dirpath, name, strerror(errno));
		return -errno;
	}
	fd = output_subdir_open(dirfd, name);
	if (fd < 0)
		rt_format(err, errlen, "cannot open %s/%s: %s", dirpath, name, strerror(errno));
	return fd < 0 ? -errno : fd;
}
