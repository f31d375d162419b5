/* flight_recorder.h: record --overwrite: keeps the newest samples per CPU in
 * fixed memory (overwrite staging rings, or the kernel's backward perf rings)
 * and, on each trigger, writes DIR/snapshot-NNN with exact accounting. */
#ifndef RINGTRACE_FLIGHT_RECORDER_H
#define RINGTRACE_FLIGHT_RECORDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/byte_buffer.h"
#include "sys/cpu_list.h"
#include "capture/staging_ring.h"

/* What the flight recorder needs from the recording session. */
struct flight_recorder_ops {
	/* writes the header file "data" (attrs, synthesized side-band,
	 * features) into dirfd; 0, or -1 with err set */
	int (*write_header)(void *ctx, int dirfd, const char *dirpath, char *err, size_t errlen);
	/* builds the LOST_SAMPLES record of cpu for count samples lost since
	 * time; returns its size */
	size_t (*build_lost)(void *ctx, int cpu, uint64_t count, uint64_t time, void *buf,
			     size_t cap);
	/* the time of any record the session writes */
	uint64_t (*record_time)(const void *rec);
	/* the BPF side's count of samples cpu produced and lost so far */
	int (*bpf_counts)(void *ctx, int cpu, uint64_t *produced, uint64_t *lost);
	/* perfbuf: reads cpu's backward kernel ring, calling sample() on each
	 * sample oldest first while the kernel's output is paused; NULL for
	 * ringbuf, whose samples are in the staging rings */
	long (*read_kernel_ring)(void *ctx, int cpu,
				 int (*sample)(void *fctx, int cpu, const void *rec, size_t size),
				 void *fctx);
	void *ctx;
};

/* One CPU: its overwrite staging ring (ringbuf), side-band so far, and where
 * the previous snapshot cut its numbering. */
struct flight_cpu {
	int cpu;
	struct staging_ring staging;
	uint64_t seq;              /* drain thread: items numbered so far (64-bit) */
	struct byte_buffer sideband; /* under the recorder's lock */
	uint64_t cut_seq;          /* snapshot thread: the previous snapshot's cut */
	uint64_t cut_bpf_lost;     /* perfbuf: the BPF side's losses at that cut */
	uint64_t totals[4];        /* produced, held, overwritten, lost over all snapshots */
};

struct flight_recorder {
	struct flight_cpu *cpus;
	unsigned int nr;
	int *slot_of_cpu;
	int nr_possible;
	bool kernel_rings;         /* perfbuf: the kernel's backward rings hold the samples */
	struct flight_recorder_ops ops;
	int dirfd;
	const char *dirpath;
	unsigned int max_snapshots; /* 0: no limit */
	pthread_mutex_t lock;       /* side-band buffers, the trigger state */
	pthread_cond_t wake;
	pthread_t thread;
	bool running;
	bool stopping;
	unsigned int requested;     /* triggers taken (coalesced while one is written) */
	unsigned int written;       /* snapshots written */
	uint64_t ignored;           /* triggers after --max-snapshots */
	char reason[128];           /* of the pending trigger */
	uint64_t mismatches;        /* periods whose counts did not add up */
	_Atomic int error;          /* a snapshot that could not be written */
	char error_text[512];
};

struct flight_recorder_config {
	const struct cpu_list *cpus;
	int nr_possible;
	size_t staging_bytes;       /* per CPU, ringbuf */
	bool kernel_rings;
	int dirfd;
	const char *dirpath;
	unsigned int max_snapshots;
	struct flight_recorder_ops ops;
};

/* 0, or -1 with err set. */
int flight_recorder_init(struct flight_recorder *f, const struct flight_recorder_config *cfg,
			 char *err, size_t errlen);
int flight_recorder_start(struct flight_recorder *f, char *err, size_t errlen);

/* Drain thread: a sample (sequence number in its cpu word), a LOST record
 * of the BPF side for count samples, a side-band record. */
int flight_recorder_sample(struct flight_recorder *f, int cpu, const void *rec, size_t size);
void flight_recorder_lost(struct flight_recorder *f, int cpu, uint64_t count, uint64_t time);
int flight_recorder_sideband(struct flight_recorder *f, int cpu, const void *rec, size_t size);

/* Any thread: asks for a snapshot, for reason (e.g. "SIGUSR2"). Triggers
 * that arrive while one is written are folded into the next one. */
void flight_recorder_trigger(struct flight_recorder *f, const char *reason);
/* Whether --max-snapshots were written. */
bool flight_recorder_full(struct flight_recorder *f);
/* Stops the snapshot thread after a last snapshot (reason "end") unless the
 * limit was reached; prints the totals. Returns 0, or -1 with err set. */
int flight_recorder_finish(struct flight_recorder *f, char *err, size_t errlen);
void flight_recorder_free(struct flight_recorder *f);

#endif
