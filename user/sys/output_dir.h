/* SPDX-License-Identifier: GPL-2.0-only */
/* output_dir.h: the recording's output directory and the files in it, made
 * without following symlinks: directory 0700 and locked while in use, files
 * 0600, never reused blindly, removed again when a recording fails to start. */
#ifndef RINGTRACE_OUTPUT_DIR_H
#define RINGTRACE_OUTPUT_DIR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* The file a flight recording keeps in its directory while it runs: its pid. */
#define OUTPUT_PID_FILE "ringtrace.pid"
/* The file a recording writes as it ends: its totals. Without it, report
 * knows the recording never ended (killed). */
#define OUTPUT_TOTALS_FILE "totals"
/* The file a flight recording rewrites each second while it runs: its
 * counts so far (written as COUNTS_FILE.new, then renamed). */
#define OUTPUT_COUNTS_FILE "counts"
#define OUTPUT_COUNTS_NEW_FILE "counts.new"

struct output_dir {
	int fd;           /* the directory, locked (flock) for this recording */
	const char *path;
	bool created;     /* made by this recording: a failed start removes it whole */
	bool set_aside;   /* the recording it replaces (--force) is in DIR/.replaced */
	/* ...removed by a thread of its own once this one has started (a big
	 * recording's unlinks took the drain thread tens of milliseconds) */
	pthread_t remover;
	bool removing;
	int removed;      /* its outcome: 0, or -errno with remove_error set */
	char remove_error[256];
};

/* Whether path can take a new recording: it does not exist, force is given,
 * or it holds only what a recording killed before its header was written
 * left behind. 0, or -errno with err set (a usage error: it holds a recording). */
int output_dir_check(const char *path, bool force, char *err, size_t errlen);

/* Creates path (mode 0700), or with force (or when abandoned, see above)
 * reuses it if it is a real directory owned by the caller, setting its
 * recording aside (see output_dir_started) or removing what a start killed
 * early left; one whose mode is not 0700 is made again 0700, empty. Locks it: a
 * directory another recording writes into is refused. 0, or -errno with err set. */
int output_dir_open(struct output_dir *d, const char *path, bool force, char *err,
		    size_t errlen);
/* A recording that failed to start: removes what it wrote, and the directory
 * itself if it made it (else puts back the recording it was to replace);
 * then closes. */
void output_dir_discard(struct output_dir *d);
/* The recording has started: the one it replaces (--force) is removed, by a
 * thread of its own (rt-remove; here if none can be made). */
void output_dir_started(struct output_dir *d);
/* Waits for that removal to end (before DIR is renamed: --switch-output),
 * and says in one line if it failed. */
void output_dir_removal_wait(struct output_dir *d);
/* Closes (and unlocks) the directory, once the removal above has ended. */
void output_dir_close(struct output_dir *d);

/* Creates the directory dirfd/name (0700; an existing one is an error) and
 * returns an fd on it, not through a symlink; -errno with err set. */
int output_subdir_create(int dirfd, const char *dirpath, const char *name, char *err,
			 size_t errlen);

/* output_dir_files.c: creates dirfd/name exclusively, mode 0600, not
 * through a symlink; returns the fd (write-only, close-on-exec) or -errno
 * with err set. */
int output_file_create(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen);
/* output_dir_files.c: opens dirfd/name, a regular file ringtrace made there, to write at its
 * end, or creates it as output_file_create does when there is none; not
 * through a symlink. The fd (write-only, appending), or -errno with err set. */
int output_file_append(int dirfd, const char *dirpath, const char *name, char *err,
		       size_t errlen);

/* Removes the snapshot directory dirfd/name ("snapshot-NNN") and its files.
 * 0, or -errno. */
int output_snapshot_remove(int dirfd, const char *name);
/* Removes the recording dirfd/name: the files, snapshots, pid file and copies
 * of binaries a recording writes, then the directory (anything else in it
 * makes that fail). 0 (also when it is not there), or -errno. */
int output_recording_remove(int dirfd, const char *name);

#endif
