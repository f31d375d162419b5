/* SPDX-License-Identifier: GPL-2.0-only */
/* record_target.h: what a recording is scoped to, resolved from the options
 * and checked before anything is attached: CPUs, processes, threads, cgroup. */
#ifndef RINGTRACE_RECORD_TARGET_H
#define RINGTRACE_RECORD_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/sideband.h"
#include "record/record.h"
#include "sys/cgroup.h"
#include "sys/cpu_list.h"

struct record_target {
	struct cpu_list online; /* every online CPU: a file and side-band each */
	struct cpu_list cpus;   /* the CPUs events are opened on */
	bool only_these_cpus;   /* -C: keep tracepoint hits of these CPUs only */
	uint32_t *tgids;        /* -p, or the workload: only these processes */
	unsigned int nr_tgids;
	uint32_t *tids;         /* -t: only these threads */
	unsigned int nr_tids;
	uint32_t *tid_processes; /* ...of these processes */
	unsigned int nr_tid_processes;
	bool per_thread;
	int *threads;           /* --per-thread: events follow these threads */
	unsigned int nr_threads;
	bool no_inherit;        /* -i: only the threads there at the start (tids) */
	bool follow_forks;      /* processes forked by targets become targets */
	bool follow_workload;   /* the workload's pid becomes the target */
	uint32_t exec_pending;  /* ...admitted once it has exec'd the command, or 0 */
	bool has_cgroup;
	struct cgroup_dir cgroup;
};

/* Resolves and checks the options. 0, or -errno with one line in err naming the
 * problem (a malformed or offline CPU list, a pid that does not exist, a
 * missing or cgroup v1 path, options that conflict). */
int record_target_resolve(struct record_target *t, const struct record_options *o, char *err,
			  size_t errlen);
/* Makes the workload (forked, not yet running) the target, if it is. */
int record_target_add_workload(struct record_target *t, pid_t pid);
/* Whether everything -p or -t named has exited (with what it forked, when
 * followed: follows_none, the sampler's), as perf's per-task events then
 * hang up and its recording ends; false for a recording of a command, or
 * of anything else. */
bool record_target_exited(const struct record_target *t, bool follows_none);
/* Adds to -p's processes those they forked since ringtrace started (with
 * what those forked), as the sampler follows them: forked before the
 * side-band's events were there to inherit, they are synthesized. 0, or
 * -ENOMEM. */
int record_target_add_early_forks(struct record_target *t);
/* Whose side-band the recording holds, as perf's: the tasks of -p (all their
 * threads), -t, -i, --per-thread or the command, their forks followed as the
 * sampler follows them; -G's cgroup; none of these (scope->nr_tids 0,
 * cgroup_fd -1) for -a or -C, every task's. *tids (to free) holds the tasks.
 * 0, or -ENOMEM. */
int record_target_sideband_scope(const struct record_target *t, struct sideband_scope *scope,
				 int **tids);
/* The processes the recording is of (-p's, the workload's, those of -t's
 * threads), *nr of them; none (*nr 0) when it is of every process. */
const uint32_t *record_target_processes(const struct record_target *t, unsigned int *nr);
void record_target_free(struct record_target *t);

#endif
