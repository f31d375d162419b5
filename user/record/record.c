/* SPDX-License-Identifier: GPL-2.0-only */
/* record.c: a recording session: started (start.c), drains the rings into the
 * sinks until stopped, prints the totals. */
#include "record/record.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/bpf_stats.h"
#include "format/perf_record.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/file_sink.h"
#include "record/flight_control.h"
#include "record/flight_recorder.h"
#include "record/mmap2_build_id.h"
#include "record/offcpu_totals.h"
#include "record/pass_wait.h"
#include "record/session.h"
#include "record/usdt_sites.h"
#include "sys/cpu_avoid.h"
#include "sys/output_dir.h"
#include "sys/mapping_opener.h"
#include "sys/privileges.h"
#include "sys/safe_open.h"
#include "sys/sched_slice.h"
#include "sys/second_signal.h"

/* how often the files held are looked at for being unlinked (a stat each) */
#define UNLINKED_CHECK_MS 250

/* Moves everything waiting in the kernel's rings into the sinks. Never blocks
 * on the disk. */
static int drain_all(struct session *s)
{
	uint64_t pass_start;
	long r;

	if (s->opts->debug_drain_delay_ms)
		usleep(s->opts->debug_drain_delay_ms * 1000);
	pass_start = monotonic_ns();
	r = bpf_sampler_drain(s->sampler);
	if (r < 0) {
		if (!s->error[0])
			rt_format(s->error, sizeof(s->error), "cannot drain the %s: %s",
				  s->opts->transport == TRANSPORT_PERFBUF ? "perf rings"
				  : s->opts->transport == TRANSPORT_RING  ? "own rings"
									  : "BPF rings",
				  strerror((int)-r));
		return (int)r;
	}
	for (unsigned int i = 0; i < s->sideband.nr; i++) {
		r = sideband_drain(&s->sideband, i, session_on_sideband, s);
		if (r < 0) {
			if (!s->error[0])
				rt_format(s->error, sizeof(s->error), "cannot drain the side-band ring of CPU %d: %s",
					  s->sideband.cpus[i].cpu, strerror((int)-r));
			return (int)r;
		}
	}
	unwind_tables_drained(&s->unwind, pass_start);
	for (unsigned int i = 0; i < s->nr_sinks; i++)
		if (s->sinks[i]->ops->flush &&
		    (r = s->sinks[i]->ops->flush(s->sinks[i], s->error, sizeof(s->error))))
			return (int)r;
	return 0;
}

/* A snapshot is asked for once everything that happened before the
 * trigger was drained into the sinks; two asked for before then are one, of
 * the wider window. */
void session_note_trigger(struct session *s, const char *reason, uint64_t since_ns)
{
	if (!s->trigger_reason[0]) {
		snprintf(s->trigger_reason, sizeof(s->trigger_reason), "%s", reason);
		s->trigger_since_ns = since_ns;
	} else if (since_ns < s->trigger_since_ns) {
		s->trigger_since_ns = since_ns;
	}
}

static void pass_trigger(struct session *s)
{
	for (unsigned int i = 0; i < s->nr_sinks; i++)
		if (s->sinks[i]->ops->trigger)
			s->sinks[i]->ops->trigger(s->sinks[i], s->trigger_reason,
						  s->trigger_since_ns);
	s->trigger_reason[0] = '\0';
}

/* The first SIGINT or SIGTERM stops the recording cleanly (drain, flush,
 * totals); from then on a second one ends the process at once (the files
 * hold whole records up to the last write), but for the first's twin that
 * timeout(1) sends its process group: it ended recordings with no totals. */
void session_request_stop(struct session *s)
{
	if (s->stopping)
		return;
	s->stopping = true;
	second_signal_arm();
}

static void handle_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->has_workload && workload_poll(&s->workload))
				s->stopping = true;
		} else if (si.ssi_signo == SIGUSR2) {
			/* sigqueue's value (flight_target_take_snapshot's
			 * since_ns): the window asked for */
			if (s->opts->overwrite)
				session_note_trigger(s, "SIGUSR2",
						     si.ssi_code == SI_QUEUE ? si.ssi_ptr : 0);
			else
				rotation_note_signal(s);
		} else {
			session_request_stop(s);
		}
	}
}

/* Building the unwind tables of what ran at the start: a slice at a time,
 * between drains. */
#define UNWIND_WORK_SLICE_MS 20

/* Every CPU's samples in the files, samples lost anywhere, bytes written,
 * once a second on the terminal. */
static void show_progress(struct session *s)
{
	struct progress_counts c = { 0 };

	if (!progress_due(&s->progress))
		return;
	for (unsigned int i = 0; i < s->cpus.nr; i++) {
		struct rt_cpu_counters k = { 0 };
		struct record_sink_totals t;

		session_sink_totals(s, s->cpus.cpus[i], &t);
		bpf_sampler_counters(s->sampler, s->cpus.cpus[i], &k);
		c.samples += t.samples;
		c.lost += k.lost + t.lost + t.unwritten;
		c.bytes += t.bytes;
	}
	progress_show(&s->progress, &c);
}

/* A flight recording's counts so far in DIR/counts, once a second, for
 * whoever watches it (export -g's /metrics): what its BPF programs
 * produced and lost, and the side-band lost. */
static void write_counts(struct session *s)
{
	struct flight_counts c = { 0 };
	double now = monotonic_seconds();

	if (!s->opts->overwrite || now < s->counts_due)
		return;
	s->counts_due = now + 1.0;
	for (unsigned int i = 0; i < s->cpus.nr; i++) {
		struct rt_cpu_counters k = { 0 };
		struct record_sink_totals t = { 0 };

		session_sink_totals(s, s->cpus.cpus[i], &t);
		bpf_sampler_counters(s->sampler, s->cpus.cpus[i], &k);
		c.produced += k.produced;
		c.lost += k.lost;
		c.sideband_lost += s->sideband.cpus[i].lost + t.sideband;
	}
	if (flight_control_write_counts(s->out.fd, &s->counts_fd, &c) && !s->counts_failed) {
		s->counts_failed = true;
		rt_warn("cannot write %s/%s: its watchers do not see its counts", s->opts->output,
			OUTPUT_COUNTS_FILE);
	}
}

/* A pass that read this many records or more from the ring of the CPU the
 * drain ran on, and less than half of them from another CPU's: a program
 * busy on that CPU, which the drain keeps off (where every CPU is as busy,
 * it gains nothing by moving). */
#define AVOID_MIN_RECORDS 512

/* The sinks' threads (the writer) run on cpus, as the drain thread does. */
static void sinks_run_on(struct session *s, const cpu_set_t *cpus)
{
	for (unsigned int i = 0; i < s->nr_sinks; i++)
		if (s->sinks[i]->ops->run_on)
			s->sinks[i]->ops->run_on(s->sinks[i], cpus);
}

/* The drain keeps off the CPU whose ring it read most where it ran there
 * itself (cpu_avoid.h): it took that time from what it records, while
 * another CPU may have been idle; the writer it wakes with it. Where it then
 * waits to run nearly all the time (a real-time task on the CPUs it keeps
 * to), it runs anywhere again. */
static void keep_off_busiest_cpu(struct session *s, struct cpu_avoid *avoid)
{
	uint64_t records, quietest, now = monotonic_ns();
	int cpu = bpf_sampler_busiest_cpu(s->sampler, &records, &quietest);

	if (cpu >= 0 && records >= AVOID_MIN_RECORDS && quietest * 2 < records &&
	    cpu == sched_getcpu() && cpu_avoid(avoid, cpu, now))
		sinks_run_on(s, &avoid->given);
	else if (cpu_avoid_starved(avoid, now))
		sinks_run_on(s, &avoid->allowed);
}

static int run_loop(struct session *s)
{
	struct cpu_avoid avoid;
	bool unwind_work = s->unwind.on;
	/* test knob: the start's tables built late, as on a machine of many processes */
	double unwind_from = monotonic_seconds() + s->opts->debug_start_tables_delay_ms / 1e3;
	double look_at_targets = 0, look_at_unlinked = 0;
	int r = 0;

	/* woken by a ring on a CPU busy with what it records (the scheduler
	 * leaves it there when no CPU looks idle at that instant: see
	 * cpu_avoid.h), the drain preempts it instead of waiting out its slice
	 * (~4 ms here) while the rings fill: a kernel that has no such slice
	 * keeps its own */
	sched_slice_set(SCHED_SLICE_SHORTEST_NS);
	cpu_avoid_init(&avoid);
	while (!s->stopping) {
		struct epoll_event evs[16];
		bool unwind_now = unwind_work && monotonic_seconds() >= unwind_from;
		/* side-band held for ordering is tracked a pass later: soon, as a
		 * new process's stacks wait for it */
		int n = record_wait_for_pass(s, evs, 16, unwind_now);

		if (n < 0 && errno != EINTR) {
			rt_format(s->error, sizeof(s->error), "epoll_wait: %s", strerror(errno));
			r = -errno;
			break;
		}
		for (int i = 0; i < n; i++)
			if (evs[i].data.u64 == TAG_SIGNAL)
				handle_signal(s);
			else if (evs[i].data.u64 == TAG_TRIGGER)
				snapshot_trigger_poll(s->trigger);
			else if ((uint32_t)evs[i].data.u64 == TAG_SIDEBAND &&
				 (evs[i].events & (EPOLLHUP | EPOLLERR)))
				/* its task and what it forked have gone (as
				 * perf drops such an fd): never woken again,
				 * still drained */
				epoll_ctl(s->epfd, EPOLL_CTL_DEL,
					  s->sideband.cpus[evs[i].data.u64 >> TAG_SLOT_SHIFT].ring.fd,
					  NULL);
		if ((r = drain_all(s)))
			break;
		keep_off_busiest_cpu(s, &avoid);
		if (rotation_after_drain(s))
			session_request_stop(s);
		if (s->trigger_reason[0])
			pass_trigger(s);
		if (unwind_now)
			unwind_work = unwind_tables_work(&s->unwind, UNWIND_WORK_SLICE_MS);
		unwind_tables_collect(&s->unwind);
		python_procs_name_seen(&s->python);
		hotspot_procs_name_seen(&s->hotspot);
		/* mapped files deleted or replaced since: copied while held */
		if (monotonic_seconds() >= look_at_unlinked) {
			look_at_unlinked = monotonic_seconds() + UNLINKED_CHECK_MS / 1e3;
			unlinked_copies_check(&s->build_ids.unlinked);
		}
		/* this pass's mappings, opened once for all their users */
		safe_open_mappings_forget();
		show_progress(s);
		write_counts(s);
		/* -p, -t: ends once what it traces has exited, as perf's does */
		if (!s->has_workload && monotonic_seconds() >= look_at_targets) {
			look_at_targets = monotonic_seconds() + DRAIN_INTERVAL_MS / 1e3;
			if (record_target_exited(&s->target, bpf_sampler_follows_none(s->sampler)))
				s->stopping = true;
		}
	}
	if (avoid.moves) {
		cpu_avoid_end(&avoid);
		sinks_run_on(s, &avoid.allowed);
	}
	return r;
}

/* Losses of cpu that no record reported (the BPF side's pending loss, or what
 * the kernel never got to write) become its last record: LOST_SAMPLES. */
static int report_unreported_losses(struct session *s, int cpu)
{
	uint8_t buf[RECORDING_LOST_MAX];
	uint64_t time, count = bpf_sampler_unreported_losses(s->sampler, cpu, &time);
	size_t n;

	if (!count)
		return 0;
	n = recording_lost_record(buf, sizeof(buf), PERF_RECORD_LOST_SAMPLES,
				  s->sampler_events[0].id, count, time, cpu);
	return n ? session_to_sinks(s, cpu, buf, n, false) : -ENOMEM;
}

/* Stops sampling, drains what is left, reports the losses nothing reported,
 * lets the sinks finish, then prints the totals. */
static int finish(struct session *s)
{
	int ret = 0, r;

	progress_clear(&s->progress);
	snapshot_trigger_stop(s->trigger);
	s->trigger = NULL;
	bpf_sampler_stop(s->sampler);
	/* no sample is newer */
	s->sampling_until = monotonic_seconds();
	sideband_disable(&s->sideband);
	if ((r = drain_all(s)))
		ret = r;
	unwind_tables_release(&s->unwind, UINT64_MAX);
	jit_maps_copy_all(&s->jit_maps);
	unlinked_copies_check(&s->build_ids.unlinked);
	/* what no sample touched is not copied */
	if (s->build_ids.held)
		held_copies_finish(s->build_ids.held);
	/* bounded: every copy is within the budget */
	file_copies_finish(s->copies);
	file_copies_finish(s->unlinked_copies);
	/* the names of Python frames, added to the JIT maps just copied */
	python_procs_finish(&s->python);
	hotspot_procs_finish(&s->hotspot);
	v8_procs_finish(&s->v8);
	for (unsigned int i = 0; i < s->target.cpus.nr; i++)
		if ((r = report_unreported_losses(s, s->target.cpus.cpus[i])) && !s->error[0]) {
			rt_format(s->error, sizeof(s->error), "cannot report the losses of CPU %d",
				  s->target.cpus.cpus[i]);
			ret = r;
		}
	for (unsigned int i = 0; i < s->nr_sinks; i++) {
		char err[512];

		if ((r = s->sinks[i]->ops->finish(s->sinks[i], err, sizeof(err)))) {
			if (!s->error[0])
				rt_format(s->error, sizeof(s->error), "%s", err);
			ret = r;
		}
	}
	/* the flight recorder prints its own totals, per snapshot */
	if (!s->opts->overwrite)
		session_print_summary(s);
	session_print_copies(s);
	offcpu_print_totals(s->sampler, s->opts->off_cpu_min_ns, s->opts->verbose);
	unwind_tables_print_totals(&s->unwind, s->sampler, s->opts->verbose, s->opts->quiet);
	if (s->opts->verbose) {
		python_procs_print_totals(&s->python, s->sampler);
		hotspot_procs_print_totals(&s->hotspot, s->sampler);
		v8_procs_print_totals(&s->v8, s->sampler);
	}
	return ret ? ret : s->error[0] ? -EIO : 0;
}

static void end_session(struct session *s)
{
	if (s->has_workload)
		workload_stop(&s->workload);
	snapshot_trigger_stop(s->trigger);
	for (unsigned int i = 0; i < s->nr_sinks; i++)
		if (s->sinks[i])
			s->sinks[i]->ops->free(s->sinks[i]);
	byte_buffer_free(&s->synthesized);
	byte_buffer_free(&s->tracing);
	if (s->out.fd >= 0) {
		build_id_cache_free(&s->build_ids);
		jit_maps_free(&s->jit_maps);
		mapped_build_ids_free(&s->mapped);
	}
	byte_buffer_free(&s->rewritten);
	byte_buffer_free(&s->interp_rec);
	python_procs_free(&s->python);
	hotspot_procs_free(&s->hotspot);
	v8_procs_free(&s->v8);
	safe_open_mappings_close();
	mapping_opener_stop();
	/* before the directory is closed or cleared: its copy under way given up */
	file_copies_free(s->copies);
	s->copies = NULL;
	file_copies_free(s->unlinked_copies);
	s->unlinked_copies = NULL;
	/* (the store the copies were made in while rotating, once they are) */
	rotation_free(s);
	if (s->counts_fd >= 0)
		close(s->counts_fd);
	if (s->opts->overwrite && s->out.fd >= 0)
		flight_control_remove_pid(s->out.fd);
	unwind_tables_free(&s->unwind);
	bpf_sampler_close(s->sampler);
	sideband_close(&s->sideband);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	/* a recording that never started leaves nothing behind */
	if (s->started)
		output_dir_close(&s->out);
	else
		output_dir_discard(&s->out);
	free(s->file_events);
	free(s->held_attrs);
	free(s->sampler_events);
	for (unsigned int i = 0; s->usdt_sites && i < s->opts->nr_events; i++)
		usdt_sites_free(&s->usdt_sites[i]);
	free(s->usdt_sites);
	cpu_list_free(&s->cpus);
	record_target_free(&s->target);
}

/* --unwind-mem not given (0): room for the tables of what the machine maps
 * when the recording is of every process (-a, -C, -G), else the floor
 * (those of the recording's processes fit in it). */
static void size_unwind_mem(struct session *s)
{
	struct record_options *o = s->opts;

	if (!o->unwind_ehframe || o->unwind_mem)
		return;
	o->unwind_mem = s->target.follow_workload || s->target.nr_tgids || s->target.nr_tids
				? UNWIND_MEM_FLOOR
				: unwind_mem_default(&s->unwind_machine);
}

int record_run(struct record_options *opts)
{
	struct session s = { .opts = opts, .out.fd = -1, .sigfd = -1, .epfd = -1, .counts_fd = -1,
			     .target.cgroup.fd = -1, .rotation.fd = -1,
			     .rotation.parentfd = -1, .rotation.store_fd = -1 };
	sigset_t mask, orig_mask;
	bool failed;
	int status = 1, r;

	bpf_sampler_set_verbose(opts->verbose > 1);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	/* a snapshot request; taken only by a flight recording, whom it does
	 * not end: the others ignore it */
	sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, &orig_mask);
	if (session_adopt_sinks(&s)) {
		rt_error("%s", s.error);
		goto out;
	}
	s.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s.sigfd < 0) {
		rt_error("signalfd: %s", strerror(errno));
		goto out;
	}
	if ((r = session_plan(&s)) || rotation_init(&s)) {
		rt_error("%s", s.error[0] ? s.error : "out of memory");
		/* bad input, but for what this user may not read (tracefs, a
		 * cgroup): a runtime failure */
		status = r == -EACCES || r == -EPERM ? 1 : 2;
		goto out;
	}
	size_unwind_mem(&s);
	if (privileges_check("record", s.error, sizeof(s.error))) {
		rt_error("%s", s.error);
		goto out;
	}
	/* everything loaded, attached and opened (the files the unwind tables
	 * of running processes are compiled from too): no capability is needed
	 * any more, and none is kept for the threads started after */
	if (session_start(&s, &orig_mask)) {
		if (atomic_load(&s.start_abandoned)) {
			/* given up before anything was attached */
			rt_info("ringtrace: stopped while starting: nothing recorded");
			status = 0;
		} else {
			rt_error("%s", s.error[0] ? s.error : "cannot start recording");
		}
		goto out;
	}
	/* but on one thread that opens mapped files by their mappings (so that
	 * one deleted since keeps its build-id and names), if ours to keep */
	if (!opts->keep_caps)
		mapping_opener_start();
	/* and on one that reads the layout of JVMs started from now on */
	if (hotspot_reader_start(&s.hotspot))
		rt_warn("cannot start the thread reading JVMs: those started from now on keep "
			"their native frames");
	/* and on one that names the JavaScript functions of Node.js processes */
	if (v8_namer_start(&s.v8))
		rt_warn("cannot start the thread naming JavaScript functions: they stay unnamed");
	if ((!opts->keep_caps &&
	     (opts->keep_read_caps ? privileges_drop_all_but_reading(s.error, sizeof(s.error))
				   : privileges_drop_all(s.error, sizeof(s.error)))) ||
	    session_start_threads(&s)) {
		rt_error("%s", s.error[0] ? s.error : "cannot start recording");
		goto out;
	}
	s.started = true;
	output_dir_started(&s.out);
	progress_init(&s.progress, stderr, opts->quiet);
	failed = run_loop(&s) != 0;
	/* even after a failure, stop cleanly and keep what was recorded */
	failed |= finish(&s) != 0;
	if (failed) {
		rt_error("%s", s.error);
		goto out;
	}
	status = 0;
	/* (a command never run, stopped while the recording started: 0) */
	if (s.has_workload && !atomic_load(&s.start_abandoned)) {
		workload_poll(&s.workload);
		status = workload_exit_code(&s.workload);
		/* (not the interrupt that ended both, nor our own SIGTERM) */
		if (s.workload.reaped && WIFSIGNALED(s.workload.status) &&
		    WTERMSIG(s.workload.status) != SIGINT && WTERMSIG(s.workload.status) != SIGTERM)
			rt_warn("the command (pid %d) was killed by signal %d (%s)",
				(int)s.workload.pid, WTERMSIG(s.workload.status),
				strsignal(WTERMSIG(s.workload.status)));
	}
out:
	end_session(&s);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	return status;
}
