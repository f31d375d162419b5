/* record_writer.h: per-CPU staging rings and the thread that empties them into
 * the per-CPU files, so a slow disk never stalls the thread draining the kernel. */
#ifndef RINGTRACE_RECORD_WRITER_H
#define RINGTRACE_RECORD_WRITER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sys/cpu_list.h"
#include "format/perf_data_writer.h"
#include "capture/staging_ring.h"

/* Builds the LOST record of cpu for count items of cls lost since time. */
typedef size_t (*record_lost_builder)(void *ctx, int cpu, enum staging_class cls, uint64_t count,
				      uint64_t time, void *buf, size_t cap);

struct record_writer;

/* One CPU: its staging ring (filled by the drain thread) and its file. */
struct cpu_output {
	int cpu;
	struct staging_ring staging;
	struct perf_data_stream stream;
	uint64_t samples_written;          /* SAMPLE records that reached the stream */
	uint64_t lost_reported[STAGING_CLASSES]; /* items the stream's LOST records count */
	struct record_writer *owner;
};

struct record_writer {
	struct cpu_output *cpus;
	unsigned int nr;
	record_lost_builder build_lost;
	void *build_ctx;
	unsigned int delay_ms; /* test knob: a slow disk */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	atomic_bool stop;
	atomic_int error;     /* errno of the first failed write, 0 if none */
	int error_cpu;
};

/* Creates DIR/data.cpuN for every CPU (0600, exclusively) with a staging ring
 * of staging_bytes each. 0, or -1 with err set. */
int record_writer_init(struct record_writer *w, const struct cpu_list *cpus, int dirfd,
		       const char *dirpath, size_t staging_bytes, record_lost_builder build,
		       void *build_ctx, char *err, size_t errlen);
/* The output of cpu, or NULL. */
struct cpu_output *record_writer_cpu(struct record_writer *w, int cpu);
int record_writer_start(struct record_writer *w, char *err, size_t errlen);
/* Tells the thread records are waiting. */
void record_writer_kick(struct record_writer *w);
/* Lets the thread write everything left, LOST records included, then joins
 * it and closes the files. Returns 0, or the errno of the first failed write. */
int record_writer_finish(struct record_writer *w);
void record_writer_free(struct record_writer *w);

#endif
