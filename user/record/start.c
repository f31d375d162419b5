/* SPDX-License-Identifier: GPL-2.0-only */
/* start.c: a recording's start: the workload forked, the output opened, the
 * side-band, sinks and synthesized side-band, the sampler loaded and attached,
 * the triggers, the loop's epoll; on a thread of its own that a stop signal
 * interrupts at any instant; then, once the capabilities are dropped, the
 * threads and the workload. */
#include "record/session.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "record/flight_control.h"
#include "sys/process_stats.h"
#include "sys/output_dir.h"

static void on_trigger_fired(void *ctx, const char *reason)
{
	session_note_trigger(ctx, reason, 0);
}

/* The in-kernel snapshot triggers, once the sampler runs. */
static int start_triggers(struct session *s)
{
	const struct record_options *o = s->opts;
	struct sampler_scope_filter scope;
	struct snapshot_trigger_config cfg = {
		.event = o->trigger_event,
		.runqlat_ns = o->trigger_runqlat_ns,
		.scope = &scope,
		.fired = on_trigger_fired,
		.ctx = s,
	};

	if (!o->trigger_event && !o->trigger_runqlat_ns)
		return 0;
	bpf_sampler_scope_filter(s->sampler, &scope);
	s->trigger = snapshot_trigger_start(&cfg, s->error, sizeof(s->error));
	return s->trigger ? 0 : -EIO; /* what failed is in s->error */
}

static int setup_epoll(struct session *s)
{
	struct epoll_event ev = { .events = EPOLLIN };

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	ev.data.u64 = TAG_SIGNAL;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev))
		return -errno;
	ev.data.u64 = TAG_SAMPLER;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, bpf_sampler_epoll_fd(s->sampler), &ev))
		return -errno;
	if (s->trigger) {
		ev.data.u64 = TAG_TRIGGER;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, snapshot_trigger_epoll_fd(s->trigger), &ev))
			return -errno;
	}
	/* unwind tables compiled in the builder's thread wake the loop */
	if (unwind_tables_fd(&s->unwind) >= 0) {
		ev.data.u64 = TAG_UNWIND;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, unwind_tables_fd(&s->unwind), &ev))
			return -errno;
	}
	for (unsigned int i = 0; i < s->sideband.nr; i++) {
		/* which ring: a task's hangs up once the task has gone */
		ev.data.u64 = TAG_SIDEBAND | (uint64_t)i << TAG_SLOT_SHIFT;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sideband.cpus[i].ring.fd, &ev))
			return -errno;
	}
	return 0;
}

/* At most this many task-tracking events (a descriptor each). */
#define SIDEBAND_TASK_EVENTS_MAX 4096u

/* Descriptors kept free beside the task-tracking events: those the rest of
 * the start opens (BPF maps and programs, per-CPU files, copies). */
#define DESCRIPTOR_RESERVE 1024u

/* Whether more descriptors fit beside those open now and the reserve,
 * RLIMIT_NOFILE's soft limit raised (up to the hard one) as needed. */
static bool room_for_descriptors(uint64_t more)
{
	uint64_t want = process_open_fds() + more + DESCRIPTOR_RESERVE;

	return process_raise_fd_limit(want) >= want;
}

/* The side-band of what the recording is of, as perf's: its tasks' (the
 * command's, from before its exec), its cgroup's, or the machine's. */
static int open_sideband(struct session *s)
{
	const struct record_options *o = s->opts;
	struct sideband_scope scope;
	uint64_t events;
	int *tids, r;

	if (record_target_add_early_forks(&s->target) ||
	    record_target_sideband_scope(&s->target, &scope, &tids)) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	/* a descriptor per task and CPU, as perf's: past the budget (a
	 * process of thousands of threads) or RLIMIT_NOFILE, the machine's
	 * side-band, said */
	events = (uint64_t)scope.nr_tids * s->cpus.nr;
	if (events > SIDEBAND_TASK_EVENTS_MAX || (events && !room_for_descriptors(events))) {
		rt_warn("%u threads on %u CPUs take %" PRIu64 " task-tracking events, over %s%u: "
			"the recording holds the side-band of every process",
			scope.nr_tids, s->cpus.nr, events,
			events > SIDEBAND_TASK_EVENTS_MAX ? "" : "the descriptors RLIMIT_NOFILE leaves or ",
			SIDEBAND_TASK_EVENTS_MAX);
		scope.nr_tids = 0;
	}
	/* perf's build-id pass keeps what samples hit: a recording of some
	 * processes copies what its samples touch (not with every stack
	 * copied, --call-graph dwarf, whose frames only report's unwinding
	 * finds, nor in a flight recording, whose snapshots each hold their own) */
	if ((scope.nr_tids || scope.cgroup_fd >= 0) && !o->overwrite && !o->stack_user &&
	    session_hold_copies(s)) {
		free(tids);
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	r = sideband_open(&s->sideband, &s->cpus,
			  scope.nr_tids || scope.cgroup_fd >= 0 ? &scope : NULL,
			  RECORDING_SAMPLE_ID_TYPE, o->sideband_pages, s->cgroup_field,
			  o->stack_user > 0,
			  /* the in-kernel unwinder learns of mappings from it */
			  o->unwind_ehframe, s->error, sizeof(s->error));
	free(tids);
	return r;
}

static int start_session(struct session *s, sigset_t *orig_mask)
{
	const struct record_options *o = s->opts;
	int r, copies_fd;

	/* the workload is forked first, before the large buffers exist, so
	 * the drain never takes copy-on-write faults on pages it shares */
	if (o->workload_argv) {
		if ((r = workload_prepare(&s->workload, o->workload_argv, orig_mask, s->error,
					  sizeof(s->error))))
			return r;
		s->has_workload = true;
		if (record_target_add_workload(&s->target, s->workload.pid)) {
			rt_format(s->error, sizeof(s->error), "out of memory");
			return -ENOMEM;
		}
	}
	if ((r = output_dir_open(&s->out, o->output, o->force, s->error, sizeof(s->error))))
		return r;
	/* (while rotating, beside the outputs: linked into each) */
	copies_fd = rotation_copies_dirfd(s);
	s->copies = file_copies_new(copies_fd, o->copy_budget);
	if (!s->copies) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	build_id_cache_init(&s->build_ids, copies_fd, s->copies);
	/* a flight recording runs for ever: its copies of deleted binaries
	 * kept within a quarter of the copy budget, the oldest removed, made
	 * by copies of their own */
	if (o->overwrite) {
		s->unlinked_copies = file_copies_new(s->out.fd, o->copy_budget / 4);
		if (!s->unlinked_copies) {
			rt_format(s->error, sizeof(s->error), "out of memory");
			return -ENOMEM;
		}
		unlinked_copies_keep_within(&s->build_ids.unlinked, s->unlinked_copies,
					    o->copy_budget / 4);
	}
	/* --unwind-tables sampled: the walks say which files samples met;
	 * a deleted binary none met (a library mapped, never run) is not
	 * copied, its names asked for by no sample */
	if (o->unwind_ehframe && o->unwind_sampled)
		unlinked_copies_only_met(&s->build_ids.unlinked, unwind_tables_file_met, &s->unwind);
	jit_maps_init(&s->jit_maps, copies_fd, s->copies);
	python_procs_init(&s->python, copies_fd, o->overwrite ? NULL : s->copies,
			  o->unwind_ehframe);
	hotspot_procs_init(&s->hotspot, copies_fd, o->overwrite ? NULL : s->copies,
			   o->unwind_ehframe);
	v8_procs_init(&s->v8, copies_fd, o->overwrite ? NULL : s->copies, o->unwind_ehframe);
	mapped_build_ids_init(&s->mapped, record_copies_stacks(o));
	if ((r = open_sideband(s)))
		return r;
	s->tracking_id = s->sideband.cpus[0].id;
	/* the sampler verified before the side-band runs: nothing reads its
	 * rings until the start is done, and the verifier takes a second on a
	 * busy machine (a launch storm's MMAP2s filled them meanwhile) */
	if ((r = session_create_sinks(s)) || (r = session_load_sampler(s)))
		return r;
	if (atomic_load(&s->start_abandoned))
		return -ECANCELED;
	if (sideband_enable(&s->sideband)) {
		r = -errno;
		rt_format(s->error, sizeof(s->error), "cannot enable task tracking: %s",
			  strerror((int)-r));
		return r;
	}
	if ((r = session_synthesize(s)))
		return r;
	/* stopped meanwhile: nothing is attached */
	if (atomic_load(&s->start_abandoned))
		return -ECANCELED;
	/* the flight recorder writes headers into its snapshots only */
	if (!o->overwrite &&
	    (r = session_write_header(s, s->out.fd, o->output, s->error, sizeof(s->error))))
		return r;
	if ((r = session_start_sampler(s)) || (r = start_triggers(s)) || (r = setup_epoll(s)) ||
	    (r = session_open_sinks(s)))
		return r;
	/* where "ringtrace snapshot" finds the recording */
	if (o->overwrite &&
	    (r = flight_control_write_pid(s->out.fd, o->output, s->error, sizeof(s->error))))
		return r;
	return 0;
}

/* The signal that interrupts the start's thread once a stop is asked for: a
 * BPF program's load gives up at a pending signal (the verifier's), which
 * SIGINT, blocked for the signalfd, never is. */
#define START_INTERRUPT SIGURG
/* How often the start's thread is interrupted once told to give up: each BPF
 * load libbpf makes of a program (up to 5, then 5 more for its log) runs at
 * most this long; sent by a timer of the kernel's, so that a busy machine,
 * which delays the main thread, does not delay it. */
#define START_INTERRUPT_NS 1000000L
/* (the name timer_create(2) gives the field, which glibc 2.36 lacks) */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif
/* How often the main thread looks for a stop while the start runs. */
#define START_POLL_NS 10000000L

static void on_start_interrupt(int sig)
{
	(void)sig;
}

struct start_job {
	struct session *s;
	sigset_t *orig_mask;
	int result;
	_Atomic pid_t tid;
	_Atomic bool done;
};

static void *start_thread(void *arg)
{
	struct start_job *j = arg;
	sigset_t interrupt;

	atomic_store(&j->tid, gettid());
	sigemptyset(&interrupt);
	sigaddset(&interrupt, START_INTERRUPT);
	pthread_sigmask(SIG_UNBLOCK, &interrupt, NULL);
	j->result = start_session(j->s, j->orig_mask);
	/* the start's files opened while the capabilities are held */
	if (!j->result)
		unwind_tables_open_queued(&j->s->unwind);
	atomic_store(&j->done, true);
	return NULL;
}

/* Interrupts the start's thread every START_INTERRUPT_NS from now on, by a
 * timer signalling that thread; 0, or -errno (the caller then signals it
 * itself at each poll). */
static int interrupt_start_thread(struct start_job *j, timer_t *timer)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = START_INTERRUPT };
	struct itimerspec every = { .it_value = { 0, 1 }, .it_interval = { 0, START_INTERRUPT_NS } };
	pid_t tid;

	/* (before it has run, it cannot be signalled by its id: polled) */
	while (!(tid = atomic_load(&j->tid)) && !atomic_load(&j->done))
		sched_yield();
	if (!tid)
		return -ESRCH;
	ev.sigev_notify_thread_id = tid;
	if (timer_create(CLOCK_MONOTONIC, &ev, timer))
		return -errno;
	if (timer_settime(*timer, 0, &every, NULL)) {
		int e = -errno;

		timer_delete(*timer);
		return e;
	}
	return 0;
}

/* Starts the session on a thread of its own, so that a SIGINT, SIGTERM or
 * SIGHUP is answered at any instant of the start (the /proc walk, BPF
 * programs verified for a second on a busy machine, a workload's tables
 * compiled): the start is told to give up (its loops stop, a BPF load is
 * interrupted, nothing not yet attached is) and the session stops. 0, or
 * start_session's error (-ECANCELED: given up before the sampler ran). */
int session_start(struct session *s, sigset_t *orig_mask)
{
	struct sigaction sa = { .sa_handler = on_start_interrupt, .sa_flags = SA_RESTART };
	struct start_job j = { .s = s, .orig_mask = orig_mask };
	bool timed = false;
	pthread_t thread;
	timer_t timer;
	sigset_t stop;
	int e;

	sigemptyset(&sa.sa_mask);
	sigaction(START_INTERRUPT, &sa, NULL);
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	if ((e = pthread_create(&thread, NULL, start_thread, &j))) {
		rt_format(s->error, sizeof(s->error), "cannot start: %s", strerror(e));
		return -e;
	}
	pthread_setname_np(thread, "rt-start");
	while (!atomic_load(&j.done)) {
		siginfo_t si;

		if (sigtimedwait(&stop, &si, &(struct timespec){ 0, START_POLL_NS }) > 0 &&
		    !atomic_load(&s->start_abandoned)) {
			atomic_store(&s->start_abandoned, true);
			session_request_stop(s);
			timed = !interrupt_start_thread(&j, &timer);
		}
		if (atomic_load(&s->start_abandoned) && !timed)
			pthread_kill(thread, START_INTERRUPT);
	}
	pthread_join(thread, NULL);
	if (timed)
		timer_delete(timer);
	return j.result;
}

/* After the capabilities are dropped: the sinks' threads (which inherit the
 * caller's capabilities when created), then the workload. */
int session_start_threads(struct session *s)
{
	const struct record_options *o = s->opts;
	int e = file_copies_start(s->copies);

	if (!e)
		e = file_copies_start(s->unlinked_copies);

	if (e) {
		rt_format(s->error, sizeof(s->error), "cannot start the thread that copies files: %s",
			  strerror(e));
		return -e;
	}
	for (unsigned int i = 0; i < s->nr_sinks; i++)
		if (s->sinks[i]->ops->start &&
		    (e = s->sinks[i]->ops->start(s->sinks[i], s->error, sizeof(s->error))))
			return e;
	/* (never once the recording was stopped while starting) */
	if (s->has_workload && !s->stopping &&
	    (e = workload_start(&s->workload, o->workload_argv, s->error, sizeof(s->error))))
		return e;
	return 0;
}
