/* SPDX-License-Identifier: GPL-2.0-only */
/* process_tree.h: the machine's processes as /proc shows them now, each with
 * its parent and start time: what a recording that follows forks reads once
 * its fork hook is attached, for the forks it came too late to see. */
#ifndef RINGTRACE_PROCESS_TREE_H
#define RINGTRACE_PROCESS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct process_node {
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ticks; /* since boot, in clock ticks (field 22 of stat) */
};

/* Every process in /proc now (those that end meanwhile left out), in *nodes
 * (the caller frees it), *nr of them: 0, or -errno (errno set too). */
int process_tree_read(struct process_node **nodes, size_t *nr);

/* Whether process or thread id has exited (no longer in /proc, or a zombie
 * waiting for its parent). */
bool process_exited(uint32_t id);

/* Most passes of process_tree_follow_forks over /proc. */
#define FOLLOW_FORKS_PASSES 16

/* The processes started since this one whose parent is followed (followed
 * says so) are given to follow (with their parent), which returns 1 if it
 * followed one it did not yet, 0 if not, or a negative errno that stops the
 * walk; again until a pass follows none new (a child followed may have forked
 * before it was), at most FOLLOW_FORKS_PASSES. 0, follow's error, or -errno
 * (errno set) when /proc cannot be read. A child forked within a clock tick
 * before this process started may be given too. */
int process_tree_follow_forks(bool (*followed)(uint32_t pid, void *ctx),
			      int (*follow)(uint32_t pid, uint32_t ppid, void *ctx), void *ctx);

/* The start of pid (0: this process) in the unit of start_ticks: 0, or -errno
 * with errno set. */
int process_start_ticks(uint32_t pid, uint64_t *ticks);

#endif
