/* record_writer.c: per-CPU staging rings and the thread that empties them into
 * the per-CPU files, so a slow disk never stalls the thread draining the kernel. */
#include "record/record_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/output_dir.h"
#include "format/perf_record.h"

#define STREAM_BUFFER_BYTES (256 * 1024)
#define IDLE_WAIT_MS 50

static size_t build_lost_of_cpu(void *ctx, enum staging_class cls, uint64_t count, uint64_t time,
				void *buf, size_t cap)
{
	struct cpu_output *o = ctx;

	return o->owner->build_lost(o->owner->build_ctx, o->cpu, cls, count, time, buf, cap);
}

int record_writer_init(struct record_writer *w, const struct cpu_list *cpus, int dirfd,
		       const char *dirpath, size_t staging_bytes, record_lost_builder build,
		       void *build_ctx, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->build_lost = build;
	w->build_ctx = build_ctx;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->cpus = calloc(cpus->nr, sizeof(*w->cpus));
	if (!w->cpus) {
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < cpus->nr; i++)
		w->cpus[i].stream.fd = -1;
	for (unsigned int i = 0; i < cpus->nr; i++) {
		struct cpu_output *o = &w->cpus[i];
		char name[32];
		int fd;

		o->cpu = cpus->cpus[i];
		o->owner = w;
		snprintf(name, sizeof(name), "data.cpu%d", o->cpu);
		fd = output_file_create(dirfd, dirpath, name, err, errlen);
		if (fd < 0)
			return -1;
		if (perf_data_stream_init(&o->stream, fd, STREAM_BUFFER_BYTES)) {
			close(fd);
			rt_format(err, errlen, "out of memory");
			return -1;
		}
		w->nr++;
		if (staging_ring_init(&o->staging, staging_bytes, build_lost_of_cpu, o)) {
			rt_format(err, errlen, "cannot allocate a %zu-byte staging ring", staging_bytes);
			return -1;
		}
	}
	return 0;
}

struct cpu_output *record_writer_cpu(struct record_writer *w, int cpu)
{
	for (unsigned int i = 0; i < w->nr; i++)
		if (w->cpus[i].cpu == cpu)
			return &w->cpus[i];
	return NULL;
}

/* What a record reports lost, as the staging ring classes it. */
static void note_reported_loss(struct cpu_output *o, const struct perf_event_header *h)
{
	struct perf_lost l;

	if ((h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES) &&
	    !perf_lost_decode(h, &l))
		o->lost_reported[h->type == PERF_RECORD_LOST_SAMPLES ? STAGING_SAMPLES
								     : STAGING_OTHER] += l.lost;
}

/* Moves one CPU's waiting records into its file; true if there were any. */
static bool empty_one(struct record_writer *w, struct cpu_output *o)
{
	const struct perf_event_header *h;
	bool any = false;

	while ((h = staging_ring_peek(&o->staging))) {
		any = true;
		if (!atomic_load(&w->error)) {
			if (perf_data_stream_append(&o->stream, h, h->size)) {
				w->error_cpu = o->cpu;
				atomic_store(&w->error, o->stream.error);
			} else if (h->type == PERF_RECORD_SAMPLE) {
				o->samples_written++;
			} else {
				note_reported_loss(o, h);
			}
		}
		staging_ring_consume(&o->staging);
	}
	return any;
}

static void flush_all(struct record_writer *w)
{
	for (unsigned int i = 0; i < w->nr; i++)
		if (!atomic_load(&w->error) && perf_data_stream_flush(&w->cpus[i].stream)) {
			w->error_cpu = w->cpus[i].cpu;
			atomic_store(&w->error, w->cpus[i].stream.error);
		}
}

static void wait_for_work(struct record_writer *w)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += IDLE_WAIT_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	if (!atomic_load(&w->stop))
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	pthread_mutex_unlock(&w->lock);
}

static void *writer_thread(void *arg)
{
	struct record_writer *w = arg;

	for (;;) {
		/* stop is read before the rings: once it is seen, everything the
		 * drain thread will ever write is already there */
		bool stopping = atomic_load(&w->stop), any = false;

		for (unsigned int i = 0; i < w->nr; i++)
			any |= empty_one(w, &w->cpus[i]);
		if (any && w->delay_ms && !stopping)
			usleep(w->delay_ms * 1000);
		if (any)
			continue;
		/* idle: what was written reaches the file before waiting */
		flush_all(w);
		if (stopping)
			return NULL;
		wait_for_work(w);
	}
}

int record_writer_start(struct record_writer *w, char *err, size_t errlen)
{
	int r = pthread_create(&w->thread, NULL, writer_thread, w);

	if (r) {
		rt_format(err, errlen, "cannot start the writer thread: %s", strerror(r));
		return -1;
	}
	w->running = true;
	return 0;
}

void record_writer_kick(struct record_writer *w)
{
	pthread_mutex_lock(&w->lock);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

int record_writer_finish(struct record_writer *w)
{
	if (w->running) {
		atomic_store(&w->stop, true);
		record_writer_kick(w);
		pthread_join(w->thread, NULL);
		w->running = false;
	}
	for (unsigned int i = 0; i < w->nr; i++)
		if (perf_data_stream_close(&w->cpus[i].stream) && !atomic_load(&w->error)) {
			w->error_cpu = w->cpus[i].cpu;
			atomic_store(&w->error, w->cpus[i].stream.error);
		}
	return atomic_load(&w->error);
}

void record_writer_free(struct record_writer *w)
{
	if (w->running)
		record_writer_finish(w);
	for (unsigned int i = 0; i < w->nr; i++) {
		if (w->cpus[i].stream.buf || w->cpus[i].stream.fd >= 0)
			perf_data_stream_close(&w->cpus[i].stream);
		staging_ring_free(&w->cpus[i].staging);
	}
	free(w->cpus);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	memset(w, 0, sizeof(*w));
}
