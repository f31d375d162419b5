/* SPDX-License-Identifier: GPL-2.0-only */
/* file_sink.c: the per-CPU files of a recording: a staging ring per CPU that
 * the drain thread fills and a writer thread empties into DIR/data.cpuN. */
#include "record/file_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/staging_ring.h"
#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "lib/log.h"
#include "record/file_sink_state.h"
#include "record/sideband_history.h"
#include "sys/handoff_wake.h"
#include "sys/output_dir.h"

static struct file_sink *file_sink_of(struct record_sink *s)
{
	return (struct file_sink *)s;
}

static struct cpu_output *output_of(struct file_sink *f, int cpu)
{
	int slot = cpu >= 0 && cpu < f->nr_slots ? f->slot_of_cpu[cpu] : -1;

	return slot < 0 ? NULL : &f->cpus[slot];
}

/* The staging ring's LOST records: LOST_SAMPLES for samples, LOST (of the
 * tracking event) for side-band records. */
static size_t build_lost_of_cpu(void *ctx, enum staging_class cls, uint64_t count, uint64_t time,
				void *buf, size_t cap)
{
	struct cpu_output *o = ctx;
	bool samples = cls == STAGING_SAMPLES;

	return recording_lost_record(buf, cap,
				     samples ? PERF_RECORD_LOST_SAMPLES : PERF_RECORD_LOST,
				     samples ? o->owner->sample_lost_id : o->owner->sideband_lost_id,
				     count, time, o->cpu);
}

/* Hands a record to its CPU's staging ring, as weight items of cls. */
static int stage(struct file_sink *f, int cpu, const void *rec, size_t size,
		 enum staging_class cls)
{
	const struct perf_event_header *h = rec;
	struct cpu_output *o = output_of(f, cpu);
	bool lost = h->type == PERF_RECORD_LOST || h->type == PERF_RECORD_LOST_SAMPLES;

	if (!o)
		return -EINVAL;
	if (f->rotation && cls == STAGING_OTHER)
		sideband_history_add(&f->history, (unsigned int)(o - f->cpus), rec, size);
	if (staging_ring_write(&o->staging, rec, size, recording_record_time(rec), cls,
			       lost ? recording_lost_count(rec) : 1)) {
		f->staged_bytes += size;
	} else {
		/* a dropped LOST record's count is not lost: the ring folds it
		 * into its own LOST record; only records themselves are drops */
		if (h->type == PERF_RECORD_SAMPLE)
			o->dropped_samples++;
		else if (!lost)
			o->dropped_sideband++;
	}
	return 0;
}

static int file_sample(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	return stage(file_sink_of(s), cpu, rec, size, STAGING_SAMPLES);
}

static int file_sideband(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	return stage(file_sink_of(s), cpu, rec, size, STAGING_OTHER);
}

/* The class of a record (samples, or side-band) and the items it stands for:
 * itself, or the records a LOST record counts. */
static enum staging_class record_class(const struct file_sink *f,
				       const struct perf_event_header *h, uint64_t *items)
{
	struct perf_lost l;

	*items = 1;
	if (h->type == PERF_RECORD_SAMPLE)
		return STAGING_SAMPLES;
	if (h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES)
		return STAGING_OTHER;
	if (perf_lost_decode(h, &l))
		return STAGING_OTHER;
	*items = l.lost;
	return h->type == PERF_RECORD_LOST_SAMPLES || l.id == f->sample_lost_id ? STAGING_SAMPLES
										 : STAGING_OTHER;
}

void file_sink_set_error(struct file_sink *f, int cpu, int err)
{
	f->error_cpu = cpu;
	atomic_store(&f->error, err ? err : EIO);
}

/* The stream's buffer reached the file: what it held is written. */
static void note_written(struct cpu_output *o)
{
	o->samples_written += o->samples_buffered;
	o->samples_buffered = 0;
	for (int c = 0; c < STAGING_CLASSES; c++) {
		o->items_written[c] += o->items_buffered[c];
		o->items_buffered[c] = 0;
	}
}

/* The stream failed: what it held never reaches the file. */
static void note_unwritten(struct cpu_output *o)
{
	o->samples_unwritten += o->samples_buffered;
	o->samples_buffered = 0;
	for (int c = 0; c < STAGING_CLASSES; c++) {
		o->items_unwritten[c] += o->items_buffered[c];
		o->items_buffered[c] = 0;
	}
}

/* Appends one record to cpu's stream, counting where it went. */
static void write_record(struct file_sink *f, struct cpu_output *o,
			 const struct perf_event_header *h)
{
	uint64_t items;
	enum staging_class cls = record_class(f, h, &items);
	bool sample = h->type == PERF_RECORD_SAMPLE;

	o->last_time = recording_record_time(h);
	/* each CPU's file goes on until its own write fails (the recording
	 * stops at the first failure of any) */
	if (!o->stream.error) {
		size_t before = o->stream.len;

		if (!perf_data_stream_append(&o->stream, h, h->size)) {
			if (sample && (!o->span_first || o->last_time < o->span_first))
				o->span_first = o->last_time;
			if (sample && o->last_time > o->span_last)
				o->span_last = o->last_time;
			/* a buffer that was full went to the file first */
			if (o->stream.len < before + h->size)
				note_written(o);
			o->samples_buffered += sample;
			o->items_buffered[cls] += items;
			return;
		}
		file_sink_set_error(f, o->cpu, o->stream.error);
		note_unwritten(o);
	}
	o->samples_unwritten += sample;
	o->items_unwritten[cls] += items;
}

/* Moves one CPU's waiting records into its file; true if there were any.
 * While a switch is pending, only those staged before it: the ring's head
 * was read before the switch was seen, so a record staged after the switch
 * is never taken for one before it. */
bool file_sink_empty_one(struct file_sink *f, struct cpu_output *o)
{
	const struct perf_event_header *h;
	bool any = false;

	while ((h = staging_ring_peek(&o->staging))) {
		if (atomic_load_explicit(&f->switch_pending, memory_order_acquire) &&
		    atomic_load_explicit(&o->staging.tail, memory_order_relaxed) >= o->switch_at)
			break;
		any = true;
		write_record(f, o, h);
		staging_ring_consume(&o->staging);
	}
	return any;
}

void file_sink_flush_one(struct file_sink *f, struct cpu_output *o)
{
	if (o->stream.error) {
		note_unwritten(o);
		return;
	}
	if (perf_data_stream_flush(&o->stream)) {
		file_sink_set_error(f, o->cpu, o->stream.error);
		note_unwritten(o);
	} else {
		note_written(o);
	}
}

static void flush_all(struct file_sink *f)
{
	for (unsigned int i = 0; i < f->nr; i++)
		file_sink_flush_one(f, &f->cpus[i]);
}

static void wait_for_work(struct file_sink *f)
{
	if (!atomic_load(&f->stop))
		handoff_wake_wait(&f->wake, IDLE_WAIT_MS);
}

static void *writer_thread(void *arg)
{
	struct file_sink *f = arg;

	for (;;) {
		/* stop is read before the rings: once it is seen, everything the
		 * drain thread will ever write is already there */
		bool stopping = atomic_load(&f->stop), any = false;

		for (unsigned int i = 0; i < f->nr; i++)
			any |= file_sink_empty_one(f, &f->cpus[i]);
		if (any && f->delay_ms && !stopping)
			usleep(f->delay_ms * 1000);
		if (any)
			continue;
		/* every record before a switch is written: the switch */
		if (atomic_load_explicit(&f->switch_pending, memory_order_acquire)) {
			file_sink_switch_now(f, false);
			continue;
		}
		/* idle: what was written reaches the file before waiting */
		flush_all(f);
		if (stopping)
			return NULL;
		wait_for_work(f);
	}
}

static int file_start(struct record_sink *s, char *err, size_t errlen)
{
	struct file_sink *f = file_sink_of(s);
	int r = pthread_create(&f->thread, NULL, writer_thread, f);

	if (r) {
		rt_format(err, errlen, "cannot start the writer thread: %s", strerror(r));
		return -r;
	}
	pthread_setname_np(f->thread, "rt-writer");
	f->running = true;
	return 0;
}

static int write_error(struct file_sink *f, char *err, size_t errlen)
{
	int e = atomic_load(&f->error);

	if (!e)
		return 0;
	if (f->switch_error[0])
		rt_format(err, errlen, "%s", f->switch_error);
	else
		rt_format(err, errlen, "cannot write %s/data.cpu%d: %s", f->dirpath, f->error_cpu,
			  strerror(e));
	return -e;
}

/* Tells the writer records are waiting. */
static int file_flush(struct record_sink *s, char *err, size_t errlen)
{
	struct file_sink *f = file_sink_of(s);

	handoff_wake_signal(&f->wake);
	return write_error(f, err, errlen);
}

/* After a failed write (a full disk): what never reached cpu's file is
 * written at its end as LOST records, if the room the cut freed takes them. */
static void report_unwritten(struct file_sink *f, struct cpu_output *o)
{
	for (int c = 0; c < STAGING_CLASSES; c++) {
		uint8_t rec[RECORDING_LOST_MAX];
		size_t n;

		if (!o->items_unwritten[c])
			continue;
		n = recording_lost_record(rec, sizeof(rec),
					  c == STAGING_SAMPLES ? PERF_RECORD_LOST_SAMPLES
							       : PERF_RECORD_LOST,
					  c == STAGING_SAMPLES ? f->sample_lost_id : f->sideband_lost_id,
					  o->items_unwritten[c], o->last_time, o->cpu);
		if (n && !perf_data_stream_write_after_error(&o->stream, rec, n))
			o->lost_records_rescued++;
	}
}

/* The writer runs where the drain thread does, which wakes it: on the CPUs
 * it keeps to (a sync wakeup puts it on the drain's CPU, but not where that
 * CPU has another task waiting). */
static void file_run_on(struct record_sink *s, const cpu_set_t *cpus)
{
	struct file_sink *f = file_sink_of(s);

	if (f->running)
		pthread_setaffinity_np(f->thread, sizeof(*cpus), cpus);
}

/* Lets the writer write everything left, LOST records included, then joins
 * it and closes the files. */
static int file_finish(struct record_sink *s, char *err, size_t errlen)
{
	struct file_sink *f = file_sink_of(s);

	if (f->running) {
		atomic_store(&f->stop, true);
		file_flush(s, err, errlen);
		pthread_join(f->thread, NULL);
		f->running = false;
	}
	for (unsigned int i = 0; i < f->nr; i++) {
		struct cpu_output *o = &f->cpus[i];

		if (o->stream.fd < 0)
			continue;
		file_sink_flush_one(f, o);
		if (o->stream.error)
			report_unwritten(f, o);
		if (perf_data_stream_close(&o->stream) && !atomic_load(&f->error))
			file_sink_set_error(f, o->cpu, o->stream.error);
	}
	/* the last output is named as the others */
	if (f->rotation && !f->rotation_done) {
		f->rotation_done = true;
		file_sink_switch_now(f, true);
	}
	return write_error(f, err, errlen);
}

static bool file_totals(struct record_sink *s, int cpu, struct record_sink_totals *out)
{
	struct cpu_output *o = output_of(file_sink_of(s), cpu);

	if (!o)
		return false;
	*out = (struct record_sink_totals){
		.samples = o->samples_written,
		.lost = o->dropped_samples,
		.unwritten = o->samples_unwritten,
		.sideband = o->dropped_sideband + o->items_unwritten[STAGING_OTHER],
		.bytes = o->bytes_before + o->stream.bytes_written,
		.first_time = o->span_first,
		.last_time = o->span_last,
		.ring_used = staging_ring_used(&o->staging),
		.ring_capacity = o->staging.size,
	};
	return true;
}

static void file_free(struct record_sink *s)
{
	struct file_sink *f = file_sink_of(s);
	char err[256];

	if (!f)
		return;
	if (f->running)
		file_finish(s, err, sizeof(err));
	for (unsigned int i = 0; i < f->nr; i++) {
		if (f->cpus[i].stream.buf || f->cpus[i].stream.fd >= 0)
			perf_data_stream_close(&f->cpus[i].stream);
		staging_ring_free(&f->cpus[i].staging);
	}
	free(f->cpus);
	free(f->slot_of_cpu);
	free(f->counts);
	sideband_history_free(&f->history);
	handoff_wake_close(&f->wake);
	free(f);
}

static const struct record_sink_ops file_sink_ops = {
	.start = file_start,
	.sample = file_sample,
	.sideband = file_sideband,
	.flush = file_flush,
	.run_on = file_run_on,
	.finish = file_finish,
	.totals = file_totals,
	.free = file_free,
};

static int open_output(struct file_sink *f, struct cpu_output *o, int dirfd, size_t staging_bytes,
		       char *err, size_t errlen)
{
	int r;

	if ((r = file_sink_open_stream(f, o, dirfd, err, errlen)))
		return r;
	if ((r = staging_ring_init(&o->staging, staging_bytes, build_lost_of_cpu, o))) {
		rt_format(err, errlen, "cannot allocate a %zu-byte staging ring", staging_bytes);
		return r;
	}
	return 0;
}

struct record_sink *file_sink_create(const struct file_sink_config *cfg, char *err,
				     size_t errlen)
{
	struct file_sink *f = calloc(1, sizeof(*f));
	const struct cpu_list *cpus = cfg->cpus;
	int r;

	if (!f) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	f->base.ops = &file_sink_ops;
	if ((r = handoff_wake_init(&f->wake))) {
		free(f);
		rt_format(err, errlen, "cannot open the writer's wakeup pipe: %s", strerror(-r));
		return NULL;
	}
	f->dirpath = cfg->dirpath;
	f->sample_lost_id = cfg->sample_lost_id;
	f->sideband_lost_id = cfg->sideband_lost_id;
	f->delay_ms = cfg->writer_delay_ms;
	f->rotation = cfg->rotation;
	for (unsigned int i = 0; i < cpus->nr; i++)
		if (cpus->cpus[i] + 1 > f->nr_slots)
			f->nr_slots = cpus->cpus[i] + 1;
	f->cpus = calloc(cpus->nr, sizeof(*f->cpus));
	f->slot_of_cpu = malloc(((size_t)f->nr_slots + 1) * sizeof(int));
	f->counts = calloc(cpus->nr, sizeof(*f->counts));
	if (!f->cpus || !f->slot_of_cpu || !f->counts ||
	    (f->rotation && sideband_history_init(&f->history, cpus->nr))) {
		rt_format(err, errlen, "out of memory");
		goto fail;
	}
	for (int c = 0; c < f->nr_slots; c++)
		f->slot_of_cpu[c] = -1;
	for (unsigned int i = 0; i < cpus->nr; i++) {
		struct cpu_output *o = &f->cpus[i];

		o->cpu = cpus->cpus[i];
		o->owner = f;
		o->stream.fd = -1;
		f->slot_of_cpu[o->cpu] = (int)i;
		f->nr++;
		if (open_output(f, o, cfg->dirfd, cfg->staging_bytes, err, errlen))
			goto fail;
	}
	return &f->base;
fail:
	file_free(&f->base);
	return NULL;
}

