/* SPDX-License-Identifier: GPL-2.0-only */
/* record_target.c: what a recording is scoped to, resolved from the options
 * and checked before anything is attached: CPUs, processes, threads, cgroup. */
#include "record/record_target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/proc_ids.h"
#include "sys/process_tree.h"

/* "123,456" into a new array of numbers, each naming an existing task. */
static int parse_task_list(const char *text, const char *what, uint32_t **out, unsigned int *nr,
			   char *err, size_t errlen)
{
	const char *p = text;

	*out = NULL;
	*nr = 0;
	while (*p) {
		char *end, path[64];
		unsigned long v;
		uint32_t *grown;

		if (!isdigit((unsigned char)*p))
			goto bad;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || !v || v > 0x3fffffff || (*end && *end != ','))
			goto bad;
		snprintf(path, sizeof(path), "/proc/%lu", v);
		if (access(path, F_OK)) {
			rt_format(err, errlen, "no %s with id %lu", what, v);
			return -ESRCH;
		}
		grown = realloc(*out, (*nr + 1) * sizeof(**out));
		if (!grown)
			return -ENOMEM;
		*out = grown;
		(*out)[(*nr)++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	if (*nr)
		return 0;
bad:
	rt_format(err, errlen, "malformed %s list \"%s\": use ids like 123,456", what, text);
	return -EINVAL;
}

static int add_thread(struct record_target *t, int tid)
{
	int *grown = realloc(t->threads, (t->nr_threads + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	t->threads = grown;
	t->threads[t->nr_threads++] = tid;
	return 0;
}

/* A thread the BPF filter admits (-t, or a thread that existed at the start
 * with -i). */
static int add_tid(struct record_target *t, int tid)
{
	uint32_t *grown = realloc(t->tids, (t->nr_tids + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	t->tids = grown;
	t->tids[t->nr_tids++] = (uint32_t)tid;
	return 0;
}

/* Every thread of a process, given to add: the threads per-thread mode
 * follows, or those -i keeps to; the process alone if /proc does not list
 * its threads. */
struct thread_adder {
	struct record_target *t;
	int (*add)(struct record_target *, int);
};

static int add_one_thread(uint32_t tid, void *arg)
{
	struct thread_adder *a = arg;

	return a->add(a->t, (int)tid) ? 1 : 0;
}

static int add_threads_of(struct record_target *t, uint32_t pid,
			  int (*add)(struct record_target *, int))
{
	struct thread_adder a = { t, add };
	int r = proc_each_id(pid, add_one_thread, &a);

	if (r < 0)
		return add(t, (int)pid);
	return r ? -ENOMEM : 0;
}

static int check_conflicts(const struct record_options *o, char *err, size_t errlen)
{
	bool cpu_wide = o->system_wide || o->cpu_list;

	if (o->pid_list && o->tid_list) {
		rt_format(err, errlen, "-p and -t conflict: give processes or threads, not both");
		return -EINVAL;
	}
	if (o->system_wide && (o->pid_list || o->tid_list)) {
		rt_format(err, errlen, "-a and %s conflict: %s records only those tasks; drop -a",
			  o->pid_list ? "-p" : "-t", o->pid_list ? "-p" : "-t");
		return -EINVAL;
	}
	if (!cpu_wide && !o->pid_list && !o->tid_list && !o->workload_argv) {
		rt_format(err, errlen, "nothing to record: pass -a (all CPUs), -C CPUS, -p PID, -t TID, or a command after --");
		return -EINVAL;
	}
	if (o->per_thread && cpu_wide && !o->pid_list && !o->tid_list) {
		rt_format(err, errlen, "--per-thread needs tasks to follow: -p, -t or a command, without -a");
		return -EINVAL;
	}
	if (o->cgroup && (o->pid_list || o->tid_list || o->per_thread || !cpu_wide)) {
		rt_format(err, errlen, "-G needs -a or -C: cgroup scoping is system-wide, as in perf");
		return -EINVAL;
	}
	if (o->cgroup_exact && !o->cgroup) {
		rt_format(err, errlen, "--cgroup-exact needs -G CGROUP");
		return -EINVAL;
	}
	return 0;
}

static int resolve_cpus(struct record_target *t, const struct record_options *o, char *err,
			size_t errlen)
{
	int r;

	if ((r = cpu_list_online(&t->online, err, errlen)))
		return r;
	if (!o->cpu_list)
		return cpu_list_copy(&t->cpus, &t->online);
	if ((r = cpu_list_parse(&t->cpus, o->cpu_list, cpu_list_possible_count(), err, errlen)))
		return r;
	for (unsigned int i = 0; i < t->cpus.nr; i++)
		if (!cpu_list_contains(&t->online, t->cpus.cpus[i])) {
			rt_format(err, errlen, "CPU %d in -C %s is offline", t->cpus.cpus[i], o->cpu_list);
			return -EINVAL;
		}
	t->only_these_cpus = true;
	return 0;
}

/* The processes of -t's threads, each once. */
static int add_tid_processes(struct record_target *t, char *err, size_t errlen)
{
	t->tid_processes = calloc(t->nr_tids, sizeof(*t->tid_processes));
	if (!t->tid_processes)
		return -ENOMEM;
	for (unsigned int i = 0; i < t->nr_tids; i++) {
		uint32_t tgid;
		unsigned int k = 0;
		int r = proc_tgid_of(t->tids[i], &tgid);

		if (r == -ENOENT || r == -ESRCH) { /* gone since it was listed */
			rt_format(err, errlen, "no thread with id %u", t->tids[i]);
			return -ESRCH;
		}
		if (r) {
			rt_format(err, errlen, "thread %u: cannot read /proc/%u/status: %s",
				  t->tids[i], t->tids[i], strerror(-r));
			return r;
		}
		while (k < t->nr_tid_processes && t->tid_processes[k] != tgid)
			k++;
		if (k == t->nr_tid_processes)
			t->tid_processes[t->nr_tid_processes++] = tgid;
	}
	return 0;
}

int record_target_resolve(struct record_target *t, const struct record_options *o, char *err,
			  size_t errlen)
{
	int r;

	memset(t, 0, sizeof(*t));
	t->cgroup.fd = -1;
	if ((r = check_conflicts(o, err, errlen)) || (r = resolve_cpus(t, o, err, errlen)))
		return r;
	t->per_thread = o->per_thread;
	t->no_inherit = o->no_inherit;
	t->follow_forks = !o->no_inherit && !o->per_thread;
	if (o->pid_list) {
		if ((r = parse_task_list(o->pid_list, "process", &t->tgids, &t->nr_tgids, err,
					 errlen)))
			return r;
		for (unsigned int i = 0; o->per_thread && i < t->nr_tgids; i++)
			if ((r = add_threads_of(t, t->tgids[i], add_thread)))
				return r;
		/* -i: as perf's attr.inherit = 0, only the threads there now,
		 * none they start later, no process they fork */
		for (unsigned int i = 0; o->no_inherit && !o->per_thread && i < t->nr_tgids; i++)
			if ((r = add_threads_of(t, t->tgids[i], add_tid)))
				return r;
	} else if (o->tid_list) {
		if ((r = parse_task_list(o->tid_list, "thread", &t->tids, &t->nr_tids, err, errlen)))
			return r;
		t->follow_forks = false;
		for (unsigned int i = 0; o->per_thread && i < t->nr_tids; i++)
			if ((r = add_thread(t, (int)t->tids[i])))
				return r;
		if ((r = add_tid_processes(t, err, errlen)))
			return r;
	} else if (o->workload_argv && !o->system_wide && !o->cpu_list) {
		t->follow_workload = true;
	}
	if (!t->nr_tgids && !t->follow_workload)
		t->follow_forks = false;
	if (o->cgroup) {
		if ((r = cgroup_resolve(o->cgroup, &t->cgroup, err, errlen)))
			return r;
		t->has_cgroup = true;
	}
	return 0;
}

int record_target_add_workload(struct record_target *t, pid_t pid)
{
	uint32_t *grown;

	if (!t->follow_workload)
		return 0;
	grown = realloc(t->tgids, (t->nr_tgids + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->tgids = grown;
	t->tgids[t->nr_tgids++] = (uint32_t)pid;
	/* not sampled as ringtrace's child, before it runs the command */
	t->exec_pending = (uint32_t)pid;
	if (t->per_thread)
		return add_thread(t, pid);
	/* -i: its first thread only, as perf's attr.inherit = 0 */
	return t->no_inherit ? add_tid(t, pid) : 0;
}

bool record_target_exited(const struct record_target *t, bool follows_none)
{
	if (t->follow_workload || (!t->nr_tgids && !t->nr_tids))
		return false;
	if (t->follow_forks)
		return follows_none;
	/* -i, --per-thread, -t: the threads named or found at the start */
	for (unsigned int i = 0; i < t->nr_tids; i++)
		if (!process_exited(t->tids[i]))
			return false;
	for (unsigned int i = 0; !t->nr_tids && i < t->nr_threads; i++)
		if (!process_exited((uint32_t)t->threads[i]))
			return false;
	for (unsigned int i = 0; !t->nr_tids && !t->nr_threads && i < t->nr_tgids; i++)
		if (!process_exited(t->tgids[i]))
			return false;
	return true;
}

/* Whether pid is one of t's processes (ctx). */
static bool is_target_process(uint32_t pid, void *ctx)
{
	const struct record_target *t = ctx;

	for (unsigned int k = 0; k < t->nr_tgids; k++)
		if (t->tgids[k] == pid)
			return true;
	return false;
}

/* pid, forked by one of t's processes (ctx), made one of them: 1 if it was
 * not yet, -ENOMEM. */
static int add_target_process(uint32_t pid, uint32_t ppid, void *ctx)
{
	struct record_target *t = ctx;
	uint32_t *grown;

	(void)ppid;
	if (is_target_process(pid, t))
		return 0;
	grown = realloc(t->tgids, (t->nr_tgids + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	t->tgids = grown;
	t->tgids[t->nr_tgids++] = pid;
	return 1;
}

int record_target_add_early_forks(struct record_target *t)
{
	int r;

	if (!t->follow_forks || !t->nr_tgids)
		return 0;
	r = process_tree_follow_forks(is_target_process, add_target_process, t);
	/* /proc unreadable: the side-band holds the rest */
	return r == -ENOMEM ? r : 0;
}

struct task_list {
	int *tids;
	unsigned int nr;
};

static int task_list_add(uint32_t tid, void *arg)
{
	struct task_list *l = arg;
	int *grown = realloc(l->tids, (l->nr + 1) * sizeof(*grown));

	if (!grown)
		return 1;
	l->tids = grown;
	l->tids[l->nr++] = (int)tid;
	return 0;
}

int record_target_sideband_scope(const struct record_target *t, struct sideband_scope *scope,
				 int **tids)
{
	struct task_list l = { 0 };
	int r = 0;

	*scope = (struct sideband_scope){ .cgroup_fd = -1 };
	*tids = NULL;
	if (t->has_cgroup) {
		scope->cgroup_fd = t->cgroup.fd;
		return 0;
	}
	/* the threads the sampler follows: -t's, -i's, --per-thread's */
	if (t->nr_tids || t->nr_threads) {
		for (unsigned int i = 0; !r && i < t->nr_tids; i++)
			r = task_list_add(t->tids[i], &l);
		for (unsigned int i = 0; !r && !t->nr_tids && i < t->nr_threads; i++)
			r = task_list_add((uint32_t)t->threads[i], &l);
	} else {
		/* every thread of -p's processes, or the command's one */
		for (unsigned int i = 0; r <= 0 && i < t->nr_tgids; i++)
			if ((r = proc_each_id(t->tgids[i], task_list_add, &l)) < 0)
				r = task_list_add(t->tgids[i], &l);
	}
	if (r > 0) {
		free(l.tids);
		return -ENOMEM;
	}
	scope->tids = *tids = l.tids;
	scope->nr_tids = l.nr;
	scope->inherit = t->follow_forks;
	return 0;
}

const uint32_t *record_target_processes(const struct record_target *t, unsigned int *nr)
{
	*nr = t->nr_tgids ? t->nr_tgids : t->nr_tid_processes;
	return t->nr_tgids ? t->tgids : t->tid_processes;
}

void record_target_free(struct record_target *t)
{
	cpu_list_free(&t->online);
	cpu_list_free(&t->cpus);
	free(t->tgids);
	free(t->tids);
	free(t->tid_processes);
	free(t->threads);
	cgroup_close(&t->cgroup);
	memset(t, 0, sizeof(*t));
	t->cgroup.fd = -1;
}
