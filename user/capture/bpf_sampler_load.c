/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_sampler_load.c: opens the BPF sampler, sizes and sets it for a
 * recording's configuration and loads it, the verifier's refusal said in one
 * line; or loads it only to tell what the verifier said (bpf_sampler_verify). */
#include "capture/bpf_sampler_state.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_limits.h"
#include "capture/libbpf_messages.h"
#include "capture/usdt_multi.h"
#include "lib/log.h"
#include "sys/kernel_symbol.h"
#include "sys/privileges.h"

void bpf_sampler_set_verbose(bool verbose)
{
	libbpf_messages_show(verbose);
}

static int check_btf(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		rt_format(err, errlen, "no kernel BTF at /sys/kernel/btf/vmlinux: ringtrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -errno;
	}
	return 0;
}

/* --transport ring: room past a ring's end for its largest record (copied
 * whole there, the part past the end then again at the start): a sample with
 * every part the configuration gives it, the stack copy's included. */
static size_t ring_slack(const struct bpf_sampler_config *cfg)
{
	size_t words = RT_SAMPLE_BEFORE_STACK_WORDS + 2;

	if (cfg->stack_user > 0)
		return RT_SAMPLE_MAX_BYTES;
	if (cfg->stack_copy_budget > 0)
		return (words + 1) * 8 + RT_STACK_USER_DEFAULT;
	return words * 8;
}

static int configure(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
		     size_t errlen)
{
	const struct sampler_scope *sc = &cfg->scope;
	struct sampler_bpf *k = s->skel;
	__u32 flags = 0, probe_cpus;
	bool uprobes = false, usdt = false;
	int nr_tracepoints = 0, nr_perf_events = 0;

	if (sc->only_these_cpus)
		flags |= RT_FILTER_CPU;
	if (sc->nr_tgids)
		flags |= RT_FILTER_TGID;
	if (sc->nr_tids)
		flags |= RT_FILTER_TID;
	if (sc->cgroup_fd >= 0)
		flags |= RT_FILTER_CGROUP;
	k->rodata->capture_callchain = cfg->callchain;
	k->rodata->capture_user_stack = cfg->stack_user > 0;
	k->rodata->stack_user_size = cfg->stack_user ? cfg->stack_user : RT_STACK_USER_DEFAULT;
	k->rodata->stack_copy_budget = cfg->stack_copy_budget;
	k->rodata->capture_cgroup = cfg->cgroup_field;
	k->rodata->unwind_ehframe = cfg->unwind_ehframe;
	k->rodata->unwind_tables_sampled = cfg->unwind_ehframe && cfg->unwind_tables_sampled;
	k->rodata->unwind_quick_steps = !cfg->unwind_full_steps;
	k->rodata->follow_forks = sc->follow_forks;
	k->rodata->single_ring = sc->nr_threads > 0;
	k->rodata->use_perfbuf = cfg->transport == TRANSPORT_PERFBUF;
	k->rodata->use_own_ring = cfg->transport == TRANSPORT_RING;
	if (cfg->transport == TRANSPORT_RING) {
		k->rodata->ring_data_bytes = cfg->ring_bytes;
		k->rodata->ring_slack_bytes = ring_slack(cfg);
		k->rodata->ring_backward = cfg->overwrite;
		k->rodata->ring_plain_claim = transport_plain_claims(s->transport);
	}
	k->rodata->filter_flags = flags;
	k->rodata->perf_events_per_thread = sc->nr_threads > 0 && !sc->exec_pending;
	k->rodata->cgroup_exact = sc->cgroup_exact;
	k->rodata->target_cgroup_id = sc->cgroup_id;
	k->rodata->wakeup_bytes = cfg->wakeup_bytes;
	for (unsigned int i = 0; i < cfg->nr_events; i++) {
		if (cfg->events[i].offcpu) {
			s->offcpu = true;
			k->rodata->offcpu_event = i;
		}
		uprobes |= (cfg->events[i].probe_flags & (RT_EVENT_UPROBE | RT_EVENT_URETPROBE)) != 0;
		usdt |= (cfg->events[i].probe_flags & RT_EVENT_USDT) != 0;
		if (cfg->events[i].offcpu || cfg->events[i].probe)
			continue;
		/* an only event's index is known at load: no cookie read a hit */
		if (cfg->events[i].format)
			k->rodata->only_tracepoint_event = nr_tracepoints++ ? -1 : (__s32)i;
		else
			k->rodata->only_perf_event = nr_perf_events++ ? -1 : (__s32)i;
	}
	/* only the programs the events run: the verifier takes ~1 s for each
	 * of those that unwind stacks */
	bpf_program__set_autoload(k->progs.on_perf_event, nr_perf_events > 0);
	bpf_program__set_autoload(k->progs.on_tracepoint, nr_tracepoints > 0);
	bpf_program__set_autoload(k->progs.on_uprobe, uprobes);
	bpf_program__set_autoload(k->progs.on_usdt, usdt);
	/* a USDT probe's sites as one link where the kernel can: one grace
	 * period for all (libbpf 1.1 makes a perf event of each site) */
	s->usdt_multi = usdt && usdt_multi_supported();
	if (s->usdt_multi &&
	    bpf_program__set_expected_attach_type(k->progs.on_usdt, USDT_MULTI_ATTACH_TYPE)) {
		rt_format(err, errlen, "cannot load the USDT program for uprobe_multi links");
		return -EINVAL;
	}
	s->usdt_sites_max = cfg->usdt_sites ? cfg->usdt_sites
			    : s->usdt_multi ? USDT_SITES_DEFAULT_MULTI
					    : USDT_SITES_DEFAULT_PERF_EVENTS;
	bpf_program__set_autoload(k->progs.follow_fork, sc->follow_forks);
	bpf_program__set_autoload(k->progs.unwind_fork, cfg->unwind_ehframe);
	bpf_program__set_autoload(k->progs.unwind_exec, cfg->unwind_ehframe);
	bpf_program__set_autoload(k->progs.forget_exit, sc->follow_forks || cfg->unwind_ehframe);
	bpf_program__set_autoload(k->progs.forget_free, sc->follow_forks);
	bpf_program__set_autoload(k->progs.admit_on_exec, sc->exec_pending != 0);
	bpf_program__set_autoload(k->progs.offcpu_switch, s->offcpu);
	bpf_program__set_autoload(k->progs.own_rings_touch, cfg->transport == TRANSPORT_RING);
	k->rodata->offcpu_min_ns = cfg->offcpu_min_ns;
	/* read only when needed: kallsyms takes a tenth of a second */
	k->rodata->offcpu_schedule_addr = s->offcpu ? kernel_symbol_address("__schedule") : 0;
	/* the probes' scratch space only when there are probes */
	probe_cpus = uprobes || usdt ? (__u32)s->nr_possible : 1;
	if (bpf_map__set_max_entries(k->maps.cpu_rings, (__u32)s->nr_possible) ||
	    bpf_map__set_max_entries(k->maps.perf_rings, (__u32)s->nr_possible) ||
	    (cfg->transport == TRANSPORT_RING &&
	     (bpf_map__set_max_entries(k->maps.own_rings, (__u32)s->nr_possible) ||
	      bpf_map__set_value_size(k->maps.own_rings,
				      (__u32)transport_ring_element_bytes(s->transport)))) ||
	    bpf_map__set_max_entries(k->maps.cpu_filter, (__u32)s->nr_possible) ||
	    bpf_map__set_max_entries(k->maps.scratch, (__u32)s->nr_possible) ||
	    bpf_map__set_max_entries(k->maps.event_filters, cfg->nr_events ? cfg->nr_events : 1) ||
	    bpf_map__set_max_entries(k->maps.probe_scratch, probe_cpus) ||
	    bpf_map__set_max_entries(k->maps.probe_busy, probe_cpus) ||
	    bpf_map__set_max_entries(k->maps.offcpu_scratch, s->offcpu ? (__u32)s->nr_possible : 1) ||
	    (s->offcpu && bpf_map__set_max_entries(k->maps.offcpu_pending,
						   cfg->offcpu_max_sleepers)) ||
	    (cfg->unwind_ehframe &&
	     (bpf_map__set_max_entries(k->maps.unwind_rows, cfg->unwind_rows) ||
	      bpf_map__set_max_entries(k->maps.unwind_pages, unwind_pages_for(cfg->unwind_rows)) ||
	      bpf_map__set_max_entries(k->maps.process_mappings, cfg->unwind_processes))) ||
	    (transport_inner_map_template(s->transport) >= 0 &&
	     bpf_map__set_inner_map_fd(k->maps.cpu_rings,
				       transport_inner_map_template(s->transport)))) {
		rt_format(err, errlen, "cannot size the sampler's maps");
		return errno ? -errno : -EINVAL;
	}
	return 0;
}

/* Opens the sampler and sizes and sets it for cfg, with its transport:
 * ready to load. NULL with err set on failure. */
static struct bpf_sampler *sampler_open(const struct bpf_sampler_config *cfg,
					const struct transport_sink *sink, char *err,
					size_t errlen)
{
	struct transport_config tc = {
		.kind = cfg->transport,
		/* perf rings must be on the CPU a program runs on: all of them
		 * when events follow threads */
		.cpus = cfg->scope.nr_threads && cfg->transport != TRANSPORT_RINGBUF ? cfg->online
										     : cfg->scope.cpus,
		.single_ring = cfg->scope.nr_threads > 0 && cfg->transport == TRANSPORT_RINGBUF,
		.ring_bytes = cfg->ring_bytes,
		.wakeup_bytes = cfg->wakeup_bytes,
		.slack_bytes = ring_slack(cfg),
		.overwrite = cfg->overwrite && cfg->transport != TRANSPORT_RINGBUF,
		.locked_claims = cfg->locked_claims,
	};
	struct bpf_sampler *s;

	if (check_btf(err, errlen))
		return NULL;
	if (cfg->nr_events > RT_MAX_EVENTS) {
		rt_format(err, errlen, "too many events: at most %d", RT_MAX_EVENTS);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	s->transport_kind = cfg->transport;
	s->backward = cfg->overwrite && cfg->transport != TRANSPORT_RINGBUF;
	s->unwind_ehframe = cfg->unwind_ehframe;
	s->nr_possible = libbpf_num_possible_cpus();
	s->skel = sampler_bpf__open();
	if (!s->skel) {
		rt_format(err, errlen, "cannot open the BPF sampler: %s", strerror(errno));
		goto fail;
	}
	s->transport = transport_create(&tc, sink, err, errlen);
	if (!s->transport || configure(s, cfg, err, errlen))
		goto fail;
	return s;
fail:
	bpf_sampler_close(s);
	return NULL;
}

/* The verifier's log asked first with this much room for each program (a
 * 6.18 kernel's statistics of on_tracepoint outgrew 64 KiB), then 16 times
 * more while the kernel says it outgrew it (bpf_limits_ask), up to libbpf's
 * BPF_LOG_BUF_SIZE, the old kernels' largest. */
#define LOG_FIRST_BYTES (1u << 20)
#define LOG_MOST_BYTES (16u << 20)

size_t bpf_sampler_verify(const struct bpf_sampler_config *cfg,
			  struct bpf_program_limits *out, size_t max, char *err, size_t errlen)
{
	static const struct transport_sink no_sink;
	size_t nr = 0;
	int r = -ENOSPC;

	/* a log the kernel says the verifier outgrew: the sampler opened and
	 * loaded again with a larger one */
	for (size_t bytes = LOG_FIRST_BYTES; r == -ENOSPC && bytes <= LOG_MOST_BYTES; bytes *= 16) {
		struct bpf_sampler *s = sampler_open(cfg, &no_sink, err, errlen);
		struct bpf_limits_logs *logs;

		if (!s)
			return 0;
		logs = bpf_limits_ask(s->skel->obj, bytes);
		if (!logs) {
			rt_format(err, errlen, "cannot ask the verifier for its statistics: %s",
				  strerror(errno));
			bpf_sampler_close(s);
			return 0;
		}
		r = sampler_bpf__load(s->skel);
		if (!r)
			nr = bpf_limits_read(logs, out, max);
		bpf_limits_free(logs);
		bpf_sampler_close(s);
	}
	if (r == -ENOSPC) {
		rt_format(err, errlen, "the verifier refused the BPF sampler (%s): its log outgrew %u MiB, or no space for another reason",
			  strerror(-r), LOG_MOST_BYTES >> 20);
	} else if (r) {
		/* the statistics' log holds no reason (this kernel takes its words
		 * back): loaded again as a recording loads it, which says why */
		struct bpf_sampler *again = bpf_sampler_load(cfg, &no_sink, err, errlen);

		if (again) {
			bpf_sampler_close(again);
			rt_format(err, errlen, "the verifier refused the BPF sampler with its statistics asked (%s), not without",
				  strerror(-r));
		}
	}
	return nr;
}

bool bpf_sampler_verbose(void)
{
	return libbpf_messages_shown();
}

struct bpf_sampler *bpf_sampler_load(const struct bpf_sampler_config *cfg,
				     const struct transport_sink *sink, char *err, size_t errlen)
{
	struct bpf_sampler *s = sampler_open(cfg, sink, err, errlen);
	int r;

	if (!s)
		return NULL;
	/* loaded without asking for the verifier's log, which the kernel could
	 * refuse for the log's sake alone (bpf_limits_ask); on a refusal libbpf
	 * loads the program again for its log, whose reason is said in one line
	 * (-vv: the whole log, through libbpf's messages) */
	libbpf_messages_forget_refusal();
	r = sampler_bpf__load(s->skel);
	if (!r)
		return s;
	bpf_sampler_close(s);
	if (libbpf_messages_refusal()[0])
		rt_format(err, errlen, "cannot load the BPF sampler: the kernel's verifier refused %s",
			  libbpf_messages_refusal());
	else
		rt_format(err, errlen, "cannot load the BPF sampler: %s%s (run with -vv for the verifier's log)",
			  strerror(-r), privileges_hint(-r));
	return NULL;
}
