/* SPDX-License-Identifier: GPL-2.0-only */
/* record.h: a recording session: resolves what and where to record, opens the
 * events and files, drains rings into per-CPU files until stopped, prints totals. */
#ifndef RINGTRACE_RECORD_H
#define RINGTRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "capture/bpf_sampler.h"
#include "capture/event_spec.h"
#include "capture/perf_events.h"
#include "capture/record_sink.h"
#include "record/switch_output.h"

struct record_options {
	struct event_desc events[EVENT_SPEC_MAX]; /* cpu-clock if none given */
	unsigned int nr_events;
	bool system_wide;        /* -a */
	const char *cpu_list;    /* -C: only these CPUs */
	const char *pid_list;    /* -p: only these processes */
	const char *tid_list;    /* -t: only these threads */
	bool per_thread;         /* events follow each thread, one ring */
	bool no_inherit;         /* do not follow forked children */
	const char *cgroup;      /* -G: only this cgroup v2 (and below) */
	bool cgroup_exact;       /* -G without the groups below */
	bool all_cgroups;        /* PERF_SAMPLE_CGROUP without filtering */
	struct sample_rate rate; /* software and hardware events */
	bool period_given;       /* -c also thins tracepoints */
	bool callchain;
	uint32_t stack_user;     /* --call-graph dwarf: user stack bytes per sample, else 0 */
	bool unwind_ehframe;     /* --call-graph ehframe (-g): user stacks unwound in the kernel */
	uint64_t unwind_mem;     /* --unwind-mem: bytes for the unwind tables' rows (0:
				    the default, sized from the machine by record_run) */
	bool unwind_sampled;     /* --unwind-tables sampled: a file's table compiled once a
				    walk meets it, not when it is mapped */
	uint64_t stack_copy_budget; /* --stack-copy-budget: -g's stack copies for tables
				       not loaded yet, bytes a second a CPU (0: none) */
	uint64_t copy_budget;    /* --copy-budget: data bytes of the files copied into DIR */
	uint32_t usdt_sites;     /* --usdt-sites: most sites of a USDT probe (0: default) */
	const char *unwind_cache; /* --unwind-cache: the tables' directory, NULL: none */
	uint64_t unwind_cache_size; /* --unwind-cache-size: bytes its entries take at most */
	const char *output;
	bool force;
	bool overwrite;          /* flight recorder: keep the newest, write snapshots */
	struct record_sink **sinks; /* further sinks of the records (--metrics) */
	unsigned int nr_sinks;
	bool keep_caps;          /* do not drop the capabilities once attached */
	bool keep_read_caps;     /* but CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH */
	unsigned int max_snapshots; /* 0: no limit */
	bool snapshots_overlap;  /* each snapshot holds all that is held (export -g's) */
	struct switch_output_spec switch_output; /* --switch-output: outputs DIR.TIMESTAMP */
	unsigned int switch_max_files; /* --switch-max-files: the newest kept, 0: all */
	uint64_t max_size;       /* --max-size: an output this big stops the recording, 0: none */
	const char *trigger_event;  /* a tracepoint whose hits take snapshots */
	uint64_t trigger_runqlat_ns; /* a run-queue wait longer than this takes one */
	bool off_cpu;            /* --off-cpu: an offcpu-time event beside the others */
	uint64_t off_cpu_min_ns; /* --off-cpu-min: shorter blocks give no sample */
	enum transport_kind transport;
	size_t ring_pages;       /* per kernel ring (BPF or perf), in pages (a power of two) */
	size_t staging_bytes;    /* per-CPU staging ring, bytes (a power of two) */
	size_t sideband_pages;   /* per-CPU side-band perf ring, in pages */
	bool debug_locked_claims;           /* test knob: no plain claims of the own rings */
	bool debug_full_steps;              /* test knob: -g's walks without their quick path */
	unsigned int debug_drain_delay_ms;  /* test knobs: a slow drain... */
	unsigned int debug_writer_delay_ms; /* ...and a slow disk... */
	unsigned int debug_start_tables_delay_ms; /* ...and the start's tables late... */
	unsigned int debug_start_delay_ms;        /* ...and a slow start */
	char **workload_argv;    /* NULL-terminated command after "--", or NULL */
	int argc;                /* the whole command line, for the header */
	char **argv;
	unsigned int verbose;    /* -v: the totals in detail; -vv: libbpf's messages too */
	bool quiet;              /* no live progress line */
};

/* Whether -g's stacks with a frame in a file whose table is not loaded yet
 * are copied (--stack-copy-budget): the samples then carry a stack copy's
 * fields, empty in the others. */
static inline bool record_copies_stacks(const struct record_options *o)
{
	return o->unwind_ehframe && !o->stack_user && o->stack_copy_budget;
}

/* Runs the recording, and frees opts->sinks. Returns the process exit status: 0, the workload's exit
 * status when one ran, or 1 after printing one error line (2 for a bad
 * request found before anything was attached). */
int record_run(struct record_options *opts);

#endif
