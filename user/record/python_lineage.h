/* SPDX-License-Identifier: GPL-2.0-only */
/* python_lineage.h: the execs, exits and forks side-band told, remembered a while:
 * side-band is read a CPU at a time, so a child's fork can be read before
 * its parent's MMAP2 of an interpreter, and a child's exec before its fork.
 * What the CPython processes' tracking asks of them. */
#ifndef RINGTRACE_PYTHON_LINEAGE_H
#define RINGTRACE_PYTHON_LINEAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perf_record.h"

/* Execs and exits remembered (by pid, direct-mapped: a later pid's evicts), and forks
 * (the last ones, in the order read). A pass over the side-band rings
 * reads a few tens of milliseconds of them: a machine forking thousands a
 * second evicts the oldest first. */
#define PYTHON_LINEAGE_KEPT 1024

/* An exec or an exit of pid at time. */
struct python_pid_event {
	uint32_t pid;
	uint64_t time;
};

/* A fork: the child's ids and the fork's time in sid. */
struct python_fork {
	uint32_t parent;
	struct perf_sample_id sid;
};

struct python_lineage {
	struct python_pid_event execs[PYTHON_LINEAGE_KEPT];
	struct python_pid_event exits[PYTHON_LINEAGE_KEPT];
	struct python_fork forks[PYTHON_LINEAGE_KEPT];
	uint32_t next_fork;   /* the slot the next fork takes */
};

/* pid exec'd at time. */
void python_lineage_note_exec(struct python_lineage *l, uint32_t pid, uint64_t time);
/* Whether pid is known to have exec'd at or after time. */
bool python_lineage_execd_since(const struct python_lineage *l, uint32_t pid, uint64_t time);
/* pid exited at time (its last thread). */
void python_lineage_note_exit(struct python_lineage *l, uint32_t pid, uint64_t time);
/* Whether pid is known to have exited at or after time. */
bool python_lineage_exited_since(const struct python_lineage *l, uint32_t pid, uint64_t time);
/* parent forked sid->pid at sid->time. */
void python_lineage_note_fork(struct python_lineage *l, uint32_t parent,
			      const struct perf_sample_id *sid);
/* Takes out a fork of parent's at or after since, into *out (the oldest
 * first); false when none is left. */
bool python_lineage_take_fork(struct python_lineage *l, uint32_t parent, uint64_t since,
			      struct python_fork *out);

#endif
