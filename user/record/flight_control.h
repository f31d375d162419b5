/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_control.h: how a flight recording (record --overwrite) is found and
 * asked for snapshots: DIR/ringtrace.pid, which only it writes, and the proof
 * that a process is that recording before anything signals it. */
#ifndef RINGTRACE_FLIGHT_CONTROL_H
#define RINGTRACE_FLIGHT_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The recording: DIR/ringtrace.pid with its pid. 0, or -errno with err set. */
int flight_control_write_pid(int dirfd, const char *dirpath, char *err, size_t errlen);
void flight_control_remove_pid(int dirfd);

/* A flight recording proven to be one: a process named ringtrace, owned by
 * the caller or root, holding open the directory whose ringtrace.pid (a
 * regular file of the same owner) names it. */
struct flight_target {
	pid_t pid;
	int dirfd;
	bool child; /* the caller's own child: proven by being its parent */
	char dir[PATH_MAX];
};

/* From its directory, or from its pid. 0, or -errno with err naming why the
 * target is not a flight recording this caller may signal. */
int flight_target_from_dir(struct flight_target *t, const char *dir, char *err, size_t errlen);
int flight_target_from_pid(struct flight_target *t, pid_t pid, char *err, size_t errlen);
/* The caller's own child pid, recording into dir (the caller made both): its
 * pid file names it, it is named ringtrace, its parent is the caller. Its
 * open files are not looked at: a child that keeps capabilities the caller
 * dropped (record --keep-read-caps) keeps them from the caller. */
int flight_target_of_child(struct flight_target *t, const char *dir, pid_t pid, char *err,
			   size_t errlen);
/* Whether the process still is that recording. */
bool flight_target_alive(const struct flight_target *t);
/* Its complete snapshots (snapshot-NNN whose accounting is written), or
 * -errno. */
int flight_target_snapshots(const struct flight_target *t);
/* The name of the newest of them into name: 0, -ENOENT (none), or -errno. */
int flight_target_newest_snapshot(const struct flight_target *t, char *name, size_t len);
/* Asks it for a snapshot (SIGUSR2) and, with wait_ms, waits until one more
 * is complete: 0; -ETIMEDOUT; -ESRCH if it ended; -ECANCELED once cancel(ctx)
 * (if given) says so; err set. */
int flight_target_take_snapshot(const struct flight_target *t, unsigned int wait_ms,
				bool (*cancel)(void *ctx), void *ctx, char *err, size_t errlen);
void flight_target_close(struct flight_target *t);

#endif
