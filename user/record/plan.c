/* SPDX-License-Identifier: GPL-2.0-only */
/* plan.c: a recording planned before anything is attached: events resolved,
 * scope checked, the sampler's events and what perf reads of them; then the
 * sampler loaded and attached as planned. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "format/probe_format.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/probe_resolve.h"
#include "record/session.h"
#include "record/usdt_sites.h"
#include "sys/tracefs.h"

/* --off-cpu: the tasks of the scope asleep at once that can be timed (an
 * entry holds a callchain, about 2 KiB, allocated as a task sleeps). */
#define OFFCPU_MAX_SLEEPERS 16384

_Static_assert(EVENT_SPEC_MAX < RECORDING_MAX_EVENTS, "an event's number fits its id's low byte");

/* The recording's sample ids, unlike any other recording's: a data.cpuN file
 * copied from another one is refused by report. */
static int draw_id_base(struct session *s)
{
	uint32_t nonce;

	if (getrandom(&nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce)) {
		rt_format(s->error, sizeof(s->error),
			  "cannot draw the recording's id with getrandom: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	s->id_base = recording_id_base(nonce);
	return 0;
}

/* The events as the BPF sampler takes them, with their ids, and as perf
 * reads them. */
static int plan_events(struct session *s)
{
	const struct record_options *o = s->opts;

	s->sampler_events = calloc(o->nr_events, sizeof(*s->sampler_events));
	s->file_events = calloc(o->nr_events, sizeof(*s->file_events));
	if (!s->sampler_events || !s->file_events)
		return -ENOMEM;
	for (unsigned int i = 0; i < o->nr_events; i++) {
		const struct event_desc *ev = &o->events[i];
		struct sampler_event *se = &s->sampler_events[i];
		struct recording_event *fe = &s->file_events[i];

		se->type = ev->type;
		se->config = ev->config;
		se->exclude_user = ev->exclude_user;
		se->exclude_kernel = ev->exclude_kernel;
		se->rate = o->rate;
		se->id = recording_event_id(s->id_base, i);
		if (event_is_user_probe(ev)) {
			se->format = &ev->format;
			se->probe = &ev->probe;
			se->probe_flags = ev->kind == EVENT_USDT	   ? RT_EVENT_USDT
					  : ev->kind == EVENT_URETPROBE ? RT_EVENT_URETPROBE
									: RT_EVENT_UPROBE;
			se->tracepoint_period = 1; /* every hit */
			if (ev->kind == EVENT_USDT)
				se->usdt_sites = &s->usdt_sites[i];
		} else if (ev->kind == EVENT_OFFCPU) {
			se->offcpu = true;
		} else if (ev->kind == EVENT_TRACEPOINT) {
			se->format = &ev->format;
			se->syscall = !strcmp(ev->system, "syscalls");
			se->filter = ev->filter;
			/* every hit, as perf records tracepoints, unless -c thins them */
			se->tracepoint_period = o->period_given ? o->rate.period : 1;
		}
		*fe = (struct recording_event){
			.type = ev->type,
			.config = ev->config,
			.tracepoint = se->format != NULL,
			.freq = se->format ? 0 : o->rate.freq,
			.period = se->format ? se->tracepoint_period : o->rate.period,
			.exclude_user = ev->exclude_user,
			.exclude_kernel = ev->exclude_kernel,
			.callchain = o->callchain,
			.stack_user = o->stack_user ? o->stack_user
				      : record_copies_stacks(o) ? RT_STACK_USER_DEFAULT : 0,
			.user_callchain = o->unwind_ehframe,
			.cgroup = s->cgroup_field,
		};
		if (se->offcpu) {
			/* as perf's off_cpu_config: freq 1, period 1, and always
			 * a callchain (the user one unwound as -g, else by frame
			 * pointers: no stack dump with dwarf) */
			fe->freq = 1;
			fe->period = 0;
			fe->callchain = true;
			fe->stack_user = 0;
		}
	}
	return 0;
}

/* --trigger names a tracepoint that exists. */
static int check_trigger_event(const char *event, char *err, size_t errlen)
{
	struct tracepoint_format format;
	char system[128], *name;
	int r;

	snprintf(system, sizeof(system), "%s", event);
	name = strchr(system, ':');
	if (!name || !name[1] || name == system) {
		rt_format(err, errlen, "invalid --trigger \"%s\": give a tracepoint as SYSTEM:NAME", event);
		return -EINVAL;
	}
	*name++ = '\0';
	if ((r = tracefs_read_format(system, name, &format, err, errlen))) {
		size_t n = strlen(err);

		rt_format(err + n, errlen - n, " (for --trigger)");
		return r;
	}
	return 0;
}

/* True if a recorded tracepoint has this id. */
static bool tracepoint_id_taken(const struct record_options *o, uint32_t id)
{
	for (unsigned int i = 0; i < o->nr_events; i++)
		if (o->events[i].kind == EVENT_TRACEPOINT && o->events[i].format.id == id)
			return true;
	return false;
}

/* The user probes: binaries found (with -p, as the first process maps
 * them), functions and SDT probes checked, each given an id of its own in
 * the recording's tracing data and perf probe's name, which no two share. */
static int resolve_probes(struct session *s)
{
	struct record_options *o = s->opts;
	int pid = o->pid_list && s->target.nr_tgids ? (int)s->target.tgids[0] : 0;
	uint32_t id = PROBE_FORMAT_FIRST_ID;
	int r;

	if (!(s->usdt_sites = calloc(o->nr_events, sizeof(*s->usdt_sites)))) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < o->nr_events; i++) {
		if (!event_is_user_probe(&o->events[i]))
			continue;
		while (tracepoint_id_taken(o, id))
			id--;
		if ((r = probe_resolve(&o->events[i], pid, (uint16_t)id--, &s->usdt_sites[i],
				       s->error, sizeof(s->error))))
			return r;
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(o->events[j].name, o->events[i].name)) {
				rt_format(s->error, sizeof(s->error),
					  "two probes are both named %s: record them one at a time",
					  o->events[i].name);
				return -EINVAL;
			}
	}
	return 0;
}

int session_plan(struct session *s)
{
	struct record_options *o = s->opts;
	int r;

	for (unsigned int i = 0; i < o->nr_events; i++)
		if ((r = event_resolve(&o->events[i], s->error, sizeof(s->error))))
			return r;
	if (o->trigger_event &&
	    (r = check_trigger_event(o->trigger_event, s->error, sizeof(s->error))))
		return r;
	if ((r = record_target_resolve(&s->target, o, s->error, sizeof(s->error))) ||
	    (r = resolve_probes(s)))
		return r;
	if ((r = output_dir_check(o->output, o->force, s->error, sizeof(s->error))))
		return r;
	s->cgroup_field = s->target.has_cgroup || o->all_cgroups;
	s->nr_possible = cpu_list_possible_count();
	if (s->nr_possible <= 0) {
		rt_format(s->error, sizeof(s->error), "cannot read /sys/devices/system/cpu/possible");
		return s->nr_possible < 0 ? s->nr_possible : -EIO;
	}
	if ((r = draw_id_base(s)))
		return r;
	if (cpu_list_copy(&s->cpus, &s->target.online) || plan_events(s)) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* What the sampler is loaded and attached for. */
static void sampler_config(const struct session *s, struct bpf_sampler_config *out)
{
	const struct record_options *o = s->opts;
	const struct record_target *t = &s->target;
	struct bpf_sampler_config cfg = {
		.transport = o->transport,
		.online = &t->online,
		.events = s->sampler_events,
		.nr_events = o->nr_events,
		.scope = {
			.cpus = &t->cpus,
			.only_these_cpus = t->only_these_cpus,
			.threads = t->threads,
			.nr_threads = t->nr_threads,
			.tgids = t->tgids,
			.nr_tgids = t->nr_tgids,
			.follow_forks = t->follow_forks,
			.tids = t->tids,
			.nr_tids = t->nr_tids,
			.exec_pending = t->exec_pending,
			.cgroup_fd = t->has_cgroup ? t->cgroup.fd : -1,
			.cgroup_id = t->cgroup.id,
			.cgroup_exact = o->cgroup_exact,
		},
		.callchain = o->callchain,
		.stack_user = o->stack_user,
		.unwind_ehframe = o->unwind_ehframe,
		.unwind_tables_sampled = o->unwind_sampled,
		.unwind_full_steps = o->debug_full_steps,
		.stack_copy_budget = record_copies_stacks(o) ? o->stack_copy_budget : 0,
		.unwind_rows = unwind_tables_rows_for(o->unwind_mem),
		.usdt_sites = o->usdt_sites,
		.unwind_processes = UNWIND_MAX_PROCESSES,
		.cgroup_field = s->cgroup_field,
		.ring_bytes = o->ring_pages * (size_t)sysconf(_SC_PAGESIZE),
		.overwrite = o->overwrite,
		.locked_claims = o->debug_locked_claims,
		.offcpu_min_ns = o->off_cpu_min_ns,
		.offcpu_max_sleepers = OFFCPU_MAX_SLEEPERS,
	};

	cfg.wakeup_bytes = cfg.ring_bytes / 4;
	*out = cfg;
}

int session_load_sampler(struct session *s)
{
	struct transport_sink sink = { session_on_sample, session_on_kernel_lost, s };
	struct bpf_sampler_config cfg;

	sampler_config(s, &cfg);
	if (s->opts->debug_start_delay_ms) /* test knob: a slow start */
		usleep(s->opts->debug_start_delay_ms * 1000);
	s->sampler = bpf_sampler_load(&cfg, &sink, s->error, sizeof(s->error));
	return s->sampler ? 0 : -EIO; /* what failed is in s->error */
}

int session_start_sampler(struct session *s)
{
	const struct record_options *o = s->opts;
	const struct record_target *t = &s->target;
	struct bpf_sampler_config cfg;

	sampler_config(s, &cfg);
	/* no sample is older: "recorded X s" spans them all */
	s->sampling_from = monotonic_seconds();
	if (bpf_sampler_attach(s->sampler, &cfg, s->error, sizeof(s->error)))
		return -EIO; /* what failed is in s->error */
	/* the tables of what runs already, built while the recording runs;
	 * the side-band keeps them current */
	if (o->unwind_ehframe) {
		unsigned int nr;
		const uint32_t *procs = record_target_processes(t, &nr);

		if (unwind_tables_init(&s->unwind, s->sampler, cfg.unwind_rows, procs, nr,
				       t->follow_forks, RECORDING_SAMPLE_ID_TYPE, o->unwind_cache,
				       o->unwind_cache_size, o->unwind_sampled, &s->start_abandoned)) {
			rt_format(s->error, sizeof(s->error), "out of memory for the unwind tables");
			return -ENOMEM;
		}
		s->unwind.mem = o->unwind_mem;
		s->unwind.copy_budget = cfg.stack_copy_budget;
		if (o->rate.freq) {
			uint64_t two_periods = 2000000000ull / o->rate.freq;

			s->unwind.track_delay_ns = two_periods < TRACK_DELAY_MAX_NS ? two_periods
										    : TRACK_DELAY_MAX_NS;
		}
		s->unwind.machine = s->unwind_machine;
		unwind_tables_queue(&s->unwind, s->synthesized.data, s->synthesized.len);
		python_procs_attach(&s->python, s->sampler);
		hotspot_procs_attach(&s->hotspot, s->sampler);
		v8_procs_attach(&s->v8, s->sampler);
		if (s->has_workload)
			unwind_tables_await_exec(&s->unwind, (uint32_t)s->workload.pid,
						 o->workload_argv[0]);
	}
	return 0;
}
