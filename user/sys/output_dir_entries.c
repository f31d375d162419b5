/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir_entries.c: which entries of an output directory are ringtrace's
 * (data files, JIT maps, pid, totals and counts files, snapshots, copies of
 * binaries by build-id), and their removal: nothing else in a directory is
 * touched. */
#include "sys/output_dir_entries.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/dir_entries.h"

/* perf.data's files: "data", "data.*". */
bool output_entry_is_data(const char *name)
{
	return !strcmp(name, "data") || !strncmp(name, "data.", 5);
}

/* A JIT's symbol map copied by a recording: perf-PID.map. */
bool output_entry_is_jit_map(const char *name)
{
	return !strncmp(name, "perf-", 5) && strlen(name) > 9 && !strcmp(name + strlen(name) - 4, ".map");
}

int output_subdir_open(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Which of a directory's files are ringtrace's: all of them without one. */
struct our_files {
	bool (*ours)(const char *name);
};

static int remove_ours(int dirfd, const char *name, void *ctx)
{
	const struct our_files *f = ctx;

	if (!f->ours || f->ours(name))
		unlinkat(dirfd, name, 0);
	return 0;
}

/* Removes one level of files of a directory ringtrace wrote, then the
 * directory (anything else in it makes that fail). */
static int remove_files_and_dir(int dirfd, const char *name, bool (*ours)(const char *name))
{
	struct our_files f = { ours };
	int fd = output_subdir_open(dirfd, name), r;

	if (fd < 0)
		return -errno;
	r = dir_each_entry(fd, remove_ours, &f);
	close(fd);
	if (r)
		return r < 0 ? r : -EIO;
	return unlinkat(dirfd, name, AT_REMOVEDIR) ? -errno : 0;
}

static bool is_snapshot_file(const char *name)
{
	return output_entry_is_data(name) || output_entry_is_jit_map(name) ||
	       !strcmp(name, "accounting");
}

static int remove_build_id_subdir(int dirfd, const char *name, void *ctx)
{
	(void)ctx;
	remove_files_and_dir(dirfd, name, NULL);
	return 0;
}

/* dirfd/name/xx/yyyy: copies of binaries by build-id. */
static int remove_build_id_tree(int dirfd, const char *name)
{
	int fd = output_subdir_open(dirfd, name);

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dir_each_entry(fd, remove_build_id_subdir, NULL);
	close(fd);
	return unlinkat(dirfd, name, AT_REMOVEDIR) ? -errno : 0;
}

static int remove_ns_build_id_tree(int dirfd, const char *name, void *ctx)
{
	(void)ctx;
	remove_build_id_tree(dirfd, name);
	return 0;
}

/* DIR/.build-id/xx/yyyy, the copies of containers' binaries, and
 * DIR/.build-id-ns/INODE/xx/yyyy, those of a user's, per mount namespace. */
int output_build_ids_remove(int dirfd)
{
	int r = remove_build_id_tree(dirfd, BUILD_ID_DIR);
	int fd = output_subdir_open(dirfd, BUILD_ID_NS_DIR);

	if (fd < 0)
		return r ? r : errno == ENOENT ? 0 : -errno;
	dir_each_entry(fd, remove_ns_build_id_tree, NULL);
	close(fd);
	if (unlinkat(dirfd, BUILD_ID_NS_DIR, AT_REMOVEDIR) && !r)
		r = -errno;
	return r;
}

struct clearing {
	const char *path;
	char *err;
	size_t errlen;
	int error; /* errno of what could not be removed */
};

static int clear_entry(int dirfd, const char *name, void *ctx)
{
	struct clearing *c = ctx;
	int r;

	if (!strncmp(name, "snapshot-", 9))
		r = remove_files_and_dir(dirfd, name, is_snapshot_file);
	else if (output_entry_is_data(name) || output_entry_is_jit_map(name) ||
		 !strcmp(name, OUTPUT_PID_FILE) || !strcmp(name, OUTPUT_TOTALS_FILE) ||
		 !strcmp(name, OUTPUT_COUNTS_FILE) || !strcmp(name, OUTPUT_COUNTS_NEW_FILE))
		r = unlinkat(dirfd, name, 0);
	else
		return 0;
	if (r) {
		c->error = errno;
		rt_format(c->err, c->errlen, "%s/%s: cannot remove: %s", c->path, name,
			  strerror(errno));
		return 1;
	}
	return 0;
}

/* Removes the perf.data files ("data", "data.*"), snapshot directories, JIT
 * maps, pid and counts files a previous recording left. */
int output_entries_clear(int dirfd, const char *path, char *err, size_t errlen)
{
	struct clearing c = { path, err, errlen, EIO };
	int r;

	err[0] = '\0';
	r = dir_each_entry(dirfd, clear_entry, &c);

	if (r < 0 && !err[0])
		rt_format(err, errlen, "%s: cannot list: %s", path, strerror(-r));
	return r < 0 ? r : r ? -c.error : 0;
}

bool output_entry_is_ours(const char *name)
{
	return output_entry_is_data(name) || output_entry_is_jit_map(name) ||
	       !strcmp(name, OUTPUT_PID_FILE) || !strcmp(name, OUTPUT_TOTALS_FILE) ||
	       !strcmp(name, BUILD_ID_DIR) || !strcmp(name, BUILD_ID_NS_DIR) ||
	       !strncmp(name, "snapshot-", 9);
}


int output_snapshot_remove(int dirfd, const char *name)
{
	return strncmp(name, "snapshot-", 9) || strchr(name, '/')
		       ? -EINVAL : remove_files_and_dir(dirfd, name, is_snapshot_file);
}

int output_recording_remove(int dirfd, const char *name)
{
	char err[512];
	int fd = output_subdir_open(dirfd, name), r;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = output_entries_clear(fd, name, err, sizeof(err)) ?: output_build_ids_remove(fd);
	close(fd);
	return r ? r : unlinkat(dirfd, name, AT_REMOVEDIR) ? -errno : 0;
}
