/* SPDX-License-Identifier: GPL-2.0-only */
/* bpf_sampler.h: loads the BPF sampler, opens the recording's perf events and
 * attaches to them with its scope filters, and drains its transport. */
#ifndef RINGTRACE_BPF_SAMPLER_H
#define RINGTRACE_BPF_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/capture_counts.h"
#include "capture/event_spec.h"
#include "capture/perf_events.h"
#include "capture/transport.h"
#include "sample_record.h"
#include "unwind_maps.h"
#include "sys/cpu_list.h"
#include "sys/tracefs.h"

/* One event to sample. */
struct usdt_sites;

struct sampler_event {
	uint32_t type; /* PERF_TYPE_* */
	uint64_t config;
	bool exclude_user;
	bool exclude_kernel;
	struct sample_rate rate;               /* software and hardware events */
	uint64_t tracepoint_period;            /* tracepoints: keep every n-th hit */
	const struct tracepoint_format *format; /* set for tracepoints and user probes */
	const struct user_probe *probe;        /* set for user probes... */
	uint32_t probe_flags;                  /* ...RT_EVENT_UPROBE, _URETPROBE or _USDT */
	const struct usdt_sites *usdt_sites;   /* USDT: the probe's sites (usdt_multi.h) */
	bool syscall;                          /* a syscalls: tracepoint */
	const struct rt_filter *filter;        /* tracepoints: --filter, compiled */
	bool offcpu;                           /* offcpu-time: written by the switch program */
	uint64_t id;                           /* PERF_SAMPLE_IDENTIFIER of its samples */
};

/* Which samples are kept; every filter runs in the kernel. */
struct sampler_scope {
	const struct cpu_list *cpus; /* CPUs the events are opened on */
	bool only_these_cpus;        /* tracepoints fire on every CPU: keep only cpus */
	const int *threads;          /* per-thread mode: events follow these tids, one ring */
	unsigned int nr_threads;
	const uint32_t *tgids;       /* only these processes... */
	unsigned int nr_tgids;
	bool follow_forks;           /* ...and the processes they fork */
	const uint32_t *tids;        /* only these threads */
	unsigned int nr_tids;
	uint32_t exec_pending;       /* a pid among tgids/tids admitted only once it has
				      * exec'd (the command run: perf's enable_on_exec), or 0 */
	int cgroup_fd;               /* only this cgroup v2 (and below), or -1 */
	uint64_t cgroup_id;
	bool cgroup_exact;           /* not below */
};

struct bpf_sampler_config {
	enum transport_kind transport;
	struct sampler_event *events;
	unsigned int nr_events;
	struct sampler_scope scope;
	const struct cpu_list *online; /* CPUs a perf ring is needed on (per-thread mode) */
	bool callchain;
	uint32_t stack_user; /* --call-graph dwarf: user regs and this many stack bytes
				instead of the user callchain; 0 for frame pointers */
	bool unwind_ehframe;     /* --call-graph ehframe: user stacks unwound in the kernel */
	bool unwind_tables_sampled; /* ...the files walks meet without a table put in
				       the unwind_wanted map (--unwind-tables sampled) */
	bool unwind_full_steps;  /* ...every frame's row looked up and stepped the long way
				    (a test knob) */
	uint32_t stack_copy_budget; /* ...a stack with a frame in a file whose table is not
				       loaded yet copied instead (RT_STACK_USER_DEFAULT bytes
				       at most, as stack_user's), these many bytes a second a
				       CPU at most; 0: never */
	uint32_t unwind_rows;    /* ...room for this many rows of every file's tables */
	uint32_t usdt_sites;     /* --usdt-sites: the most sites of one USDT probe
				    attached; 0: usdt_multi.h's default */
	uint32_t unwind_processes; /* ...and for this many processes' mappings */
	bool cgroup_field; /* PERF_SAMPLE_CGROUP in every sample */
	size_t ring_bytes;   /* per ring, a power of two multiple of the page size */
	size_t wakeup_bytes; /* wake the reader once this much waits in a ring */
	bool overwrite;      /* perfbuf: backward rings, read by bpf_sampler_snapshot */
	bool locked_claims;  /* ring: every program claims by a locked add (a test knob) */
	uint64_t offcpu_min_ns;      /* --off-cpu: blocks shorter give no sample */
	uint32_t offcpu_max_sleepers; /* --off-cpu: tasks of the scope asleep at once, at most */
};

struct bpf_sampler;
struct bpf_program_limits;

/* Loads the programs cfg would run, attaches nothing, and unloads them:
 * what the verifier said of each (capture/bpf_limits.h), at most max in out.
 * Returns how many; 0 with err set when it refused one. */
size_t bpf_sampler_verify(const struct bpf_sampler_config *cfg,
			  struct bpf_program_limits *out, size_t max, char *err, size_t errlen);

/* Opens the sampler, sizes and sets it for cfg (its transport created for
 * sink), and loads it (the verifier's work: the slow part of a start):
 * nothing runs yet. NULL with err set (a refusal in the verifier's words) on
 * failure. bpf_sampler_load.c */
struct bpf_sampler *bpf_sampler_load(const struct bpf_sampler_config *cfg,
				     const struct transport_sink *sink, char *err, size_t errlen);
/* s loaded for cfg: the transport installed, the scope's maps filled, the
 * events opened and everything attached: sampling has begun when this
 * returns 0. -1 with err set on failure (s stays the caller's to close). */
int bpf_sampler_attach(struct bpf_sampler *s, const struct bpf_sampler_config *cfg, char *err,
		       size_t errlen);
/* An fd that becomes readable when a ring passed its wakeup threshold. */
int bpf_sampler_epoll_fd(const struct bpf_sampler *s);
/* Drains every ring. Returns records drained or a negative error. */
long bpf_sampler_drain(struct bpf_sampler *s);
/* The CPU whose ring gave the last drain the most records, how many, and the
 * fewest another CPU's gave (transport_busiest_cpu). */
int bpf_sampler_busiest_cpu(const struct bpf_sampler *s, uint64_t *records, uint64_t *quietest);
/* perfbuf in overwrite mode: cpu's backward ring, its samples oldest first
 * (see transport_snapshot). */
long bpf_sampler_snapshot(struct bpf_sampler *s, int cpu, const struct transport_sink *sink);
/* See transport_ring_usage. */
int bpf_sampler_ring_usage(const struct bpf_sampler *s, unsigned int i, int *cpu, uint64_t *used,
			   uint64_t *capacity);
/* Its programs' run counts and times (see bpf_stats_read). */
size_t bpf_sampler_program_stats(const struct bpf_sampler *s, struct bpf_program_runs *out,
				 size_t max);
/* Detaches every program: no sample is produced after this. */
void bpf_sampler_stop(struct bpf_sampler *s);
/* The events whose program the kernel did not run because another BPF
 * program was running on that CPU (bpf_prog_info.recursion_misses): samples
 * nobody produced, and so in no count of the BPF side. */
uint64_t bpf_sampler_missed_runs(const struct bpf_sampler *s);
/* The counters of one CPU; 0, or -errno. */
int bpf_sampler_counters(const struct bpf_sampler *s, int cpu, struct rt_cpu_counters *out);
/* After stop and a last drain: samples of cpu dropped that no record in the
 * stream reported (the BPF side's pending loss; on the perf event array, what
 * the BPF side counted beyond the kernel's LOST records), and the time to
 * report them at. 0 if none. */
uint64_t bpf_sampler_unreported_losses(const struct bpf_sampler *s, int cpu, uint64_t *time);
void bpf_sampler_close(struct bpf_sampler *s);

/* --off-cpu: its counters summed over CPUs, and the tasks still asleep (their
 * time off CPU not sampled); -ENOENT if it does not run. */
int bpf_sampler_offcpu_counters(const struct bpf_sampler *s, struct rt_offcpu_counters *sum,
				uint64_t *asleep);

/* --call-graph ehframe: the maps of the unwind rows, their page index, the
 * processes' mappings, the loaded files and the files walks want (see
 * unwind_maps.h), for capture/unwind_loader.c. */
void bpf_sampler_unwind_fds(const struct bpf_sampler *s, int *rows_fd, int *pages_fd,
			    int *processes_fd, int *files_fd, int *gen_fd, int *wanted_fd);
/* The counts the walks bump after each key they put in unwind_wanted, in
 * python_code_seen (in the sampler's mapped .bss): a map looked in only
 * when its count moved. */
const volatile __u64 *bpf_sampler_wanted_added(const struct bpf_sampler *s);
const volatile __u64 *bpf_sampler_python_seen_added(const struct bpf_sampler *s);
/* ...and in hotspot_methods_seen. */
const volatile __u64 *bpf_sampler_hotspot_seen_added(const struct bpf_sampler *s);
/* ...and in v8_functions_seen, and v8_code_seen. */
const volatile __u64 *bpf_sampler_v8_seen_added(const struct bpf_sampler *s);
const volatile __u64 *bpf_sampler_v8_code_seen_added(const struct bpf_sampler *s);
/* The maps of Node.js processes for the -g walk (v8_maps.h). */
void bpf_sampler_v8_fds(const struct bpf_sampler *s, int *processes_fd, int *seen_fd,
			int *known_fd, int *inlines_fd, int *code_seen_fd);
/* The maps of CPython processes for the -g walk (python_maps.h). */
void bpf_sampler_python_fds(const struct bpf_sampler *s, int *processes_fd, int *offsets_fd,
			    int *seen_fd, int *known_fd);
/* The maps of JVMs for the -g walk (hotspot_maps.h). */
void bpf_sampler_hotspot_fds(const struct bpf_sampler *s, int *processes_fd, int *offsets_fd,
			     int *seen_fd, int *known_fd);
/* The page index entries beside rows rows. */
static inline uint32_t unwind_pages_for(uint32_t rows)
{
	return rows / RT_UNWIND_ROWS_PER_PAGE + 1;
}
/* Whether no process is followed any more (the scope's processes and those
 * they forked have all exited); false if none were followed. */
bool bpf_sampler_follows_none(const struct bpf_sampler *s);
/* Whether process tgid is in the recording's scope of processes (-p's, the
 * workload, what they forked, as followed): true when the recording is not
 * scoped by process. */
bool bpf_sampler_has_process(const struct bpf_sampler *s, uint32_t tgid);

/* The unwinder's counters summed over CPUs; -ENOENT if it does not run. */
int bpf_sampler_unwind_counters(const struct bpf_sampler *s, struct rt_unwind_counters *sum);

/* Routes libbpf's messages to stderr only when verbose. */
void bpf_sampler_set_verbose(bool verbose);

/* What a started sampler keeps in scope, for other programs to test the
 * same way (scope_filter.bpf.h): its rodata flags and its filter maps. */
struct sampler_scope_filter {
	uint32_t flags; /* RT_FILTER_*; 0: the whole machine */
	bool cgroup_exact;
	uint64_t cgroup_id;
	int cpu_filter_fd, tgids_fd, tids_fd, cgroup_fd;
};

void bpf_sampler_scope_filter(const struct bpf_sampler *s, struct sampler_scope_filter *out);

#endif
