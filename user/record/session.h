/* SPDX-License-Identifier: GPL-2.0-only */
/* session.h: the state of one recording session, shared by the files of
 * record/ that plan it, write its header and run it (not used outside record/). */
#ifndef RINGTRACE_SESSION_H
#define RINGTRACE_SESSION_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "capture/bpf_sampler.h"
#include "capture/record_sink.h"
#include "capture/sideband.h"
#include "capture/snapshot_trigger.h"
#include "format/recording_layout.h"
#include "lib/byte_buffer.h"
#include "record/jit_maps.h"
#include "record/progress.h"
#include "record/hotspot_procs.h"
#include "record/python_procs.h"
#include "record/record.h"
#include "record/record_target.h"
#include "record/rotation.h"
#include "record/unwind_tables.h"
#include "record/v8_procs.h"
#include "record/workload.h"
#include "symbols/build_id_cache.h"
#include "symbols/mapped_build_ids.h"
#include "sys/cpu_list.h"
#include "sys/output_dir.h"

#define SESSION_MAX_SINKS 4

struct session {
	struct record_options *opts;
	struct record_target target;
	struct cpu_list cpus;             /* online CPUs: one file and one side-band ring each */
	struct sampler_event *sampler_events;
	struct usdt_sites *usdt_sites; /* each USDT event's sites, by event */
	struct recording_event *file_events; /* what perf reads of each event */
	uint64_t id_base;                 /* this recording's sample ids (recording_id_base) */
	bool cgroup_field;                /* samples carry PERF_SAMPLE_CGROUP */
	int nr_possible;
	struct output_dir out;            /* DIR, locked while recording */
	/* where records go: the files or the flight recorder first, then the
	 * caller's (live metrics) */
	struct record_sink *sinks[SESSION_MAX_SINKS];
	unsigned int nr_sinks;
	struct record_source source;      /* what the sinks may ask of the session */
	struct byte_buffer synthesized;   /* side-band for what existed at the start */
	struct byte_buffer tracing;       /* HEADER_TRACING_DATA, read at the start */
	struct build_id_cache build_ids;  /* containers' binaries, kept in DIR/.build-id */
	/* each event's attr (its samples' layout), for the copies held (or NULL) */
	struct perf_event_attr *held_attrs;
	struct jit_maps jit_maps;         /* JITs' perf-PID.map, kept in DIR */
	struct file_copies *copies;       /* makes those copies, within --copy-budget */
	/* a flight recording's copies of deleted binaries, made apart (their own
	 * thread, a quarter of --copy-budget): containers' never crowd them out */
	struct file_copies *unlinked_copies;
	struct mapped_build_ids mapped;   /* build-ids of the mapped files, by inode */
	struct byte_buffer rewritten;     /* a side-band record given its build-id */
	uint64_t tracking_id;             /* the side-band event's id, for its LOST records */
	struct sideband sideband;
	struct bpf_sampler *sampler;
	struct unwind_tables unwind;      /* --call-graph ehframe: the unwinder's tables */
	/* what --unwind-mem's default was sized from (processes 0: not sized) */
	struct unwind_machine_text unwind_machine;
	struct python_procs python;       /* its CPython processes, their code's names */
	struct hotspot_procs hotspot;     /* its JVMs, their methods' names */
	struct v8_procs v8;               /* its Node.js processes, their functions' names */
	/* the MMAP2 of the range a Python process's, a JVM's or a Node.js
	 * process's frames are in */
	struct byte_buffer interp_rec;
	struct snapshot_trigger *trigger; /* --trigger, --trigger-runqlat */
	char trigger_reason[128];         /* a snapshot to ask for after the next drain */
	uint64_t trigger_since_ns;        /* of its samples from then on (0: all) */
	struct workload workload;
	bool has_workload;
	int sigfd;
	int epfd;
	struct progress progress;         /* the live line on a terminal */
	double counts_due;                /* flight: when DIR/counts is rewritten next */
	bool counts_failed;               /* ...and a failure to was said */
	int counts_fd;                    /* ...its descriptor once made, or -1 */
	struct rotation rotation;         /* --switch-output, --max-size */
	bool started;                     /* recording: what it wrote is kept */
	double sampling_from, sampling_until; /* monotonic s: from the sampler's attach to
					   * its stop (what "recorded X s" says) */
	bool stopping;
	/* a stop asked for while starting: the start's loops stop, what is
	 * not attached yet never is (set by the main thread, read by the
	 * start's) */
	_Atomic bool start_abandoned;
	char error[512];
};

/* What wakes the recording's loop (an epoll event's data). */
enum epoll_tag { TAG_SIGNAL, TAG_SAMPLER, TAG_SIDEBAND, TAG_TRIGGER, TAG_UNWIND };
/* TAG_SIDEBAND's events carry their ring's slot above the tag. */
#define TAG_SLOT_SHIFT 32

/* record.c: the first SIGINT or SIGTERM stops the recording cleanly; from
 * then on a second one ends the process at once. */
void session_request_stop(struct session *s);
/* record.c: a snapshot asked for once everything before it was drained, of
 * the samples from since_ns on (CLOCK_MONOTONIC; 0: all it holds). */
void session_note_trigger(struct session *s, const char *reason, uint64_t since_ns);

/* start.c: everything loaded, attached and opened (the start's files too),
 * on a thread of its own so that a SIGINT, SIGTERM or SIGHUP meanwhile is
 * answered at once (s->stopping, s->start_abandoned). 0, or -errno with
 * s->error set (-ECANCELED: given up before the sampler ran). */
int session_start(struct session *s, sigset_t *orig_mask);
/* start.c: after the capabilities are dropped, the sinks' threads, then the
 * workload (unless the recording was stopped while starting). */
int session_start_threads(struct session *s);

/* session_records.c: the transport's records (a SAMPLE, the BPF side's
 * LOST_SAMPLES) and the kernel's LOST records of a perf ring, handed to every
 * sink; side-band records noted and handed on. Hands a record to every sink;
 * the first error stops the recording. */
int session_to_sinks(struct session *s, int cpu, const void *rec, size_t size, bool sideband);
int session_on_sample(void *ctx, int cpu, const void *rec, size_t size);
/* Side-band records of the tracking event (slot: its CPU's), the kernel's
 * LOST among them. */
int session_on_sideband(void *ctx, unsigned int slot, const void *rec, size_t size);
int session_on_kernel_lost(void *ctx, int cpu, uint64_t count, uint64_t time, uint32_t pid,
			   uint32_t tid);

/* copies_touched.c: a recording of some processes holds its copies of
 * containers' binaries until a sample touches them (build_ids.held); 0, or
 * -ENOMEM. Then each sample's addresses touch them. */
int session_hold_copies(struct session *s);
void session_touch_copies(struct session *s, const void *rec, size_t size);

/* plan.c: everything that can be wrong with the request is found here, before
 * any file is created or anything attached. 0, or -errno with s->error set. */
int session_plan(struct session *s);
/* plan.c: loads the sampler (the verifier's work): nothing runs yet. */
int session_load_sampler(struct session *s);
/* plan.c: the sampler loaded, its events opened and attached: sampling has
 * begun; the unwinder's tables of what runs already begun. */
int session_start_sampler(struct session *s);

/* sinks.c: the primary sink (the per-CPU files, or with --overwrite the
 * flight recorder: the newest samples in memory until a snapshot) in slot
 * 0, then the caller's sinks, which are the session's from the start (it
 * frees them); once the sampler runs, every sink opened on the session's
 * record_source and given the side-band synthesized at the start. Each 0,
 * or -errno with s->error set. */
int session_create_sinks(struct session *s);
int session_adopt_sinks(struct session *s);
int session_open_sinks(struct session *s);

/* header.c: the side-band for what exists at the start, and the tracepoint
 * formats, into s->synthesized and s->tracing. */
int session_synthesize(struct session *s);
/* The totals of cpu as the recording's first sink (its file) counts them;
 * false (and zeros) if it counts none. */
bool session_sink_totals(const struct session *s, int cpu, struct record_sink_totals *t);

/* At the end of a recording: its totals per CPU and in all on stderr, and
 * the same table in DIR/totals (RECORDING_TOTALS_FILE), whose absence tells
 * report that the recording never ended (killed: what it lost after its
 * last LOST record was never counted). */
void session_print_summary(const struct session *s);
/* What the recording copied into DIR (containers' binaries, JITs' maps) and
 * refused over the budget, if it copied or refused any. */
void session_print_copies(const struct session *s);

/* header.c: DIRPATH/data: the header, the attrs with their ids, the side-band
 * synthesized at the start, and the features. Called by the snapshot thread
 * too: it only reads the session. */
int session_write_header(struct session *s, int dirfd, const char *dirpath, char *err,
			 size_t errlen);

#endif
