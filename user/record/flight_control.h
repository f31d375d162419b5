/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_control.h: how a flight recording (record --overwrite) is found,
 * watched and asked for snapshots: DIR/ringtrace.pid and DIR/counts, which
 * only it writes, and the proof that a process is that recording before
 * anything signals it. */
#ifndef RINGTRACE_FLIGHT_CONTROL_H
#define RINGTRACE_FLIGHT_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The recording: DIR/ringtrace.pid with its pid. 0, or -errno with err set. */
int flight_control_write_pid(int dirfd, const char *dirpath, char *err, size_t errlen);
/* Removes DIR/ringtrace.pid and DIR/counts as the recording ends. */
void flight_control_remove_pid(int dirfd);

/* A flight recording's counts since its start, in DIR/counts while it runs
 * (rewritten each second): the samples its BPF programs produced, those
 * lost because the kernel's ring was full, and the side-band records lost. */
struct flight_counts {
	uint64_t produced, lost, sideband_lost;
};
/* Writes DIR/counts: made the first time (*fd < 0: *fd is then its
 * descriptor, the caller's to close), then written over in place, the same
 * length each time. 0, or -errno. */
int flight_control_write_counts(int dirfd, int *fd, const struct flight_counts *c);
/* DIR/counts read back (a regular file of this user or root), read again
 * while its hash line says a write was half done: 0; -ENOENT before its
 * first second; -EAGAIN if no read was whole within 10 ms; -errno. */
int flight_counts_read(const char *dir, struct flight_counts *c);

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
/* Asks it for a snapshot (SIGUSR2; with since_ns, of the samples from then on
 * only, CLOCK_MONOTONIC: sigqueue's value) and, with wait_ms, waits until one
 * more is complete: 0; -ETIMEDOUT; -ESRCH if it ended; -ECANCELED once
 * cancel(ctx) (if given) says so; err set. */
int flight_target_take_snapshot(const struct flight_target *t, uint64_t since_ns,
				unsigned int wait_ms, bool (*cancel)(void *ctx), void *ctx,
				char *err, size_t errlen);
void flight_target_close(struct flight_target *t);

#endif
