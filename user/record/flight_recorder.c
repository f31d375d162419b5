/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_recorder.c: record --overwrite: keeps the newest samples per CPU in
 * fixed memory (overwrite staging rings, or the kernel's backward perf rings)
 * and, on each trigger, writes DIR/snapshot-NNN with exact accounting. */
#include "record/flight_recorder.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "capture/staging_ring.h"
#include "format/perf_data_writer.h"
#include "format/recording_layout.h"
#include "lib/byte_buffer.h"
#include "lib/log.h"
#include "record/flight_state.h"
#include "sys/output_dir.h"

static struct flight_cpu *cpu_of(struct flight_recorder *f, int cpu)
{
	int slot = cpu >= 0 && cpu < f->nr_possible ? f->slot_of_cpu[cpu] : -1;

	return slot < 0 ? NULL : &f->cpus[slot];
}

static struct flight_recorder *flight_of(struct record_sink *s)
{
	return (struct flight_recorder *)s;
}

/* The BPF side numbers lost samples too: they come right before the sample
 * its LOST record precedes. */
static void note_lost(struct flight_recorder *f, int cpu, uint64_t count, uint64_t time)
{
	struct flight_cpu *c = cpu_of(f, cpu);

	if (!c || !count)
		return;
	c->seq += count;
	staging_ring_overwrite_lost(&c->staging, count, time, c->seq);
}

/* A sample (sequence number in it), or a LOST record of the BPF side for
 * count samples: perfbuf snapshots take the BPF side's losses as they are. */
static int flight_sample(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	struct flight_recorder *f = flight_of(s);
	const struct perf_event_header *h = rec;
	struct flight_cpu *c = cpu_of(f, cpu);

	if (!c)
		return -EINVAL;
	if (h->type != PERF_RECORD_SAMPLE) {
		uint64_t count = recording_lost_count(rec), taken;

		if (f->kernel_rings)
			return 0;
		/* less what a trigger took ahead of it */
		taken = count < c->lost_ahead ? count : c->lost_ahead;
		c->lost_ahead -= taken;
		note_lost(f, cpu, count - taken, recording_record_time(rec));
		return 0;
	}
	c->seq = sample_seq(rec, c->seq);
	staging_ring_overwrite(&c->staging, rec, size, recording_record_time(rec), c->seq);
	return 0;
}

static int flight_sideband(struct record_sink *s, int cpu, const void *rec, size_t size)
{
	struct flight_recorder *f = flight_of(s);
	struct flight_cpu *c = cpu_of(f, cpu);
	void *at;

	if (!c)
		return -EINVAL;
	pthread_mutex_lock(&f->lock);
	at = byte_buffer_append(&c->sideband, rec, size);
	pthread_mutex_unlock(&f->lock);
	return at ? 0 : -ENOMEM;
}

/* The losses before a trigger belong to its snapshot, though their LOST
 * record waits for the CPU's next sample (which may never come): what the
 * BPF side holds unreported is noted now, and taken off that record when it
 * comes. Drain thread, right after a drain. */
static void take_unreported_losses(struct flight_recorder *f)
{
	if (f->kernel_rings || !f->ops.unreported_losses)
		return;
	for (unsigned int i = 0; i < f->nr; i++) {
		struct flight_cpu *c = &f->cpus[i];
		uint64_t time, pending = f->ops.unreported_losses(f->ops.ctx, c->cpu, &time);

		/* less than taken already: its record is on its way */
		if (pending <= c->lost_ahead)
			continue;
		note_lost(f, c->cpu, pending - c->lost_ahead, time);
		c->lost_ahead = pending;
	}
}

/* Triggers that arrive while a snapshot is written are folded into the next. */
static void flight_trigger(struct record_sink *s, const char *reason, uint64_t since_ns)
{
	struct flight_recorder *f = flight_of(s);

	take_unreported_losses(f);
	pthread_mutex_lock(&f->lock);
	if (f->max_snapshots && f->requested >= f->max_snapshots) {
		f->ignored++;
	} else if (f->requested == f->written) {
		f->requested++;
		snprintf(f->reason, sizeof(f->reason), "%s", reason);
		f->since_ns = since_ns;
		pthread_cond_signal(&f->wake);
	} else if (since_ns < f->since_ns) {
		f->since_ns = since_ns;
	}
	/* else one is pending already: this trigger is folded into it (its
	 * window the wider of the two) */
	pthread_mutex_unlock(&f->lock);
}


static void *snapshot_thread(void *arg)
{
	struct flight_recorder *f = arg;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		char reason[sizeof(f->reason)];
		uint64_t since_ns;
		unsigned int number;
		char err[512];

		while (!f->stopping && f->requested <= f->written)
			pthread_cond_wait(&f->wake, &f->lock);
		if (f->requested <= f->written)
			break;
		number = f->written;
		memcpy(reason, f->reason, sizeof(reason));
		since_ns = f->since_ns;
		pthread_mutex_unlock(&f->lock);
		err[0] = '\0';
		if (flight_write_snapshot(f, number, reason, since_ns, err, sizeof(err)) &&
		    !atomic_load(&f->error)) {
			snprintf(f->error_text, sizeof(f->error_text), "%s", err);
			atomic_store(&f->error, 1);
		}
		pthread_mutex_lock(&f->lock);
		f->written++;
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

static int flight_start(struct record_sink *s, char *err, size_t errlen)
{
	struct flight_recorder *f = flight_of(s);
	int r = pthread_create(&f->thread, NULL, snapshot_thread, f);

	if (r) {
		rt_format(err, errlen, "cannot start the snapshot thread: %s", strerror(r));
		return -r;
	}
	pthread_setname_np(f->thread, "rt-snapshot");
	f->running = true;
	return 0;
}

/* Stops the snapshot thread after a last snapshot (reason "end of
 * recording") unless --max-snapshots were taken; prints the totals. */
static int flight_finish(struct record_sink *s, char *err, size_t errlen)
{
	struct flight_recorder *f = flight_of(s);
	struct flight_accounting all = { 0 };

	if (!f->running)
		return 0;
	pthread_mutex_lock(&f->lock);
	if ((!f->max_snapshots || f->requested < f->max_snapshots) && f->requested == f->written) {
		f->requested++;
		snprintf(f->reason, sizeof(f->reason), "end of recording");
	}
	f->stopping = true;
	pthread_cond_signal(&f->wake);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	f->running = false;
	for (unsigned int i = 0; i < f->nr; i++)
		accounting_add(&all, &f->cpus[i].totals);
	rt_info("ringtrace: %u snapshot%s in %s: %" PRIu64 " samples produced = %" PRIu64
		" held + %" PRIu64 " overwritten + %" PRIu64 " lost%s", f->written,
		f->written == 1 ? "" : "s", f->dirpath, all.produced, all.held, all.overwritten,
		all.lost, f->mismatches ? " (some periods did not add up: see above)" : "");
	if (f->ignored)
		rt_info("ringtrace: %" PRIu64 " triggers after --max-snapshots %u were ignored",
			f->ignored, f->max_snapshots);
	if (atomic_load(&f->error)) {
		rt_format(err, errlen, "%s", f->error_text);
		return -EIO;
	}
	return 0;
}

static void flight_free(struct record_sink *s)
{
	struct flight_recorder *f = flight_of(s);

	if (!f)
		return;
	if (f->running) {
		/* a recording that failed: no last snapshot */
		pthread_mutex_lock(&f->lock);
		f->stopping = true;
		f->requested = f->written;
		pthread_cond_signal(&f->wake);
		pthread_mutex_unlock(&f->lock);
		pthread_join(f->thread, NULL);
	}
	for (unsigned int i = 0; i < f->nr; i++) {
		staging_ring_free(&f->cpus[i].staging);
		byte_buffer_free(&f->cpus[i].sideband);
	}
	free(f->cpus);
	free(f->slot_of_cpu);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->wake);
	free(f);
}

/* Held and overwritten: over the snapshots taken, and since the last one. */
static bool flight_totals(struct record_sink *s, int cpu, struct record_sink_totals *out)
{
	struct flight_recorder *f = flight_of(s);
	struct flight_cpu *c = cpu_of(f, cpu);

	if (!c)
		return false;
	*out = (struct record_sink_totals){
		.samples = c->totals.held,
		.overwritten = c->totals.overwritten + c->staging.overwritten,
		.ring_used = c->staging.data ? staging_ring_used(&c->staging) : 0,
		.ring_capacity = c->staging.data ? c->staging.size : 0,
	};
	return true;
}

static const struct record_sink_ops flight_recorder_ops = {
	.start = flight_start,
	.sample = flight_sample,
	.sideband = flight_sideband,
	.trigger = flight_trigger,
	.finish = flight_finish,
	.totals = flight_totals,
	.free = flight_free,
};
static const struct record_sink_ops flight_recorder_ops;

struct record_sink *flight_recorder_create(const struct flight_recorder_config *cfg, char *err,
					   size_t errlen)
{
	struct flight_recorder *f = calloc(1, sizeof(*f));

	if (!f) {
		rt_format(err, errlen, "out of memory");
		return NULL;
	}
	f->base.ops = &flight_recorder_ops;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->wake, NULL);
	f->kernel_rings = cfg->kernel_rings;
	f->transport = cfg->transport;
	f->ops = cfg->ops;
	f->dirfd = cfg->dirfd;
	f->dirpath = cfg->dirpath;
	f->max_snapshots = cfg->max_snapshots;
	f->overlap = cfg->overlap;
	f->sample_lost_id = cfg->sample_lost_id;
	f->nr_possible = cfg->nr_possible;
	f->cpus = calloc(cfg->cpus->nr, sizeof(*f->cpus));
	f->slot_of_cpu = malloc((size_t)cfg->nr_possible * sizeof(int));
	if (!f->cpus || !f->slot_of_cpu) {
		rt_format(err, errlen, "out of memory");
		goto fail;
	}
	for (int c = 0; c < cfg->nr_possible; c++)
		f->slot_of_cpu[c] = -1;
	for (unsigned int i = 0; i < cfg->cpus->nr; i++) {
		struct flight_cpu *c = &f->cpus[i];

		c->cpu = cfg->cpus->cpus[i];
		if (c->cpu < cfg->nr_possible)
			f->slot_of_cpu[c->cpu] = (int)i;
		f->nr++;
		if (!f->kernel_rings && staging_ring_init_overwrite(&c->staging, cfg->staging_bytes)) {
			rt_format(err, errlen, "cannot allocate a %zu-byte staging ring", cfg->staging_bytes);
			goto fail;
		}
	}
	return &f->base;
fail:
	flight_free(&f->base);
	return NULL;
}


