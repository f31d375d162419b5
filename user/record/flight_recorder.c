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
#include "sample_record.h"
#include "sys/output_dir.h"

#define STREAM_BUFFER_BYTES (256 * 1024)

/* One CPU: its overwrite staging ring (ringbuf), side-band so far, and where
 * the previous snapshot cut its numbering. */
struct flight_cpu {
	int cpu;
	struct staging_ring staging;
	uint64_t seq;              /* drain thread: items numbered so far (64-bit) */
	struct byte_buffer sideband; /* under the recorder's lock */
	uint64_t cut_seq;          /* snapshot thread: the previous snapshot's cut */
	uint64_t cut_bpf_lost;     /* perfbuf: the BPF side's losses at that cut */
	struct flight_accounting totals; /* over all snapshots */
};

struct flight_recorder {
	struct record_sink base;
	struct flight_cpu *cpus;
	unsigned int nr;
	int *slot_of_cpu;
	int nr_possible;
	bool kernel_rings;         /* perfbuf: the kernel's backward rings hold the samples */
	struct flight_recorder_ops ops;
	int dirfd;
	const char *dirpath;
	unsigned int max_snapshots; /* 0: no limit */
	bool overlap;               /* snapshots overlap: nothing is taken from the rings */
	uint64_t sample_lost_id;
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

/* Adds one period's accounting to a sum. */
static void accounting_add(struct flight_accounting *sum, const struct flight_accounting *a)
{
	sum->produced += a->produced;
	sum->held += a->held;
	sum->overwritten += a->overwritten;
	sum->lost += a->lost;
}

/* One CPU's part of a snapshot being written. */
struct cpu_take {
	struct staging_snapshot held; /* records held, oldest first */
	struct byte_buffer kernel;    /* perfbuf: the same, read from the kernel's ring */
	struct byte_buffer sideband;  /* a copy of the side-band so far */
	struct flight_accounting counts;
	uint64_t lost_time;
	uint64_t newest_seq;          /* perfbuf: of the newest sample read */
	uint64_t bpf_produced;        /* perfbuf: the BPF side's counts before the pause */
	uint64_t bpf_lost;
};

static struct flight_cpu *cpu_of(struct flight_recorder *f, int cpu)
{
	int slot = cpu >= 0 && cpu < f->nr_possible ? f->slot_of_cpu[cpu] : -1;

	return slot < 0 ? NULL : &f->cpus[slot];
}

/* A sample's 64-bit sequence number from the low 32 bits it carries, next to
 * near, a number within 2^31 of it. */
static uint64_t sample_seq(const void *rec, uint64_t near)
{
	uint32_t low;

	memcpy(&low, (const uint8_t *)rec + offsetof(struct rt_sample_head, seq), sizeof(low));
	return near + (uint64_t)(int64_t)(int32_t)(low - (uint32_t)near);
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
		if (!f->kernel_rings)
			note_lost(f, cpu, recording_lost_count(rec), recording_record_time(rec));
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

/* Triggers that arrive while a snapshot is written are folded into the next. */
static void flight_trigger(struct record_sink *s, const char *reason)
{
	struct flight_recorder *f = flight_of(s);

	pthread_mutex_lock(&f->lock);
	if (f->max_snapshots && f->requested >= f->max_snapshots) {
		f->ignored++;
	} else if (f->requested == f->written) {
		f->requested++;
		snprintf(f->reason, sizeof(f->reason), "%s", reason);
		pthread_cond_signal(&f->wake);
	}
	/* else one is pending already: this trigger is folded into it */
	pthread_mutex_unlock(&f->lock);
}

/* perfbuf: each sample of the kernel's ring newer than the previous cut. */
struct kernel_reader {
	struct flight_recorder *f;
	struct flight_cpu *c;
	struct cpu_take *take;
};

static int on_kernel_sample(void *ctx, int cpu, const void *rec, size_t size)
{
	struct kernel_reader *rd = ctx;
	uint64_t seq = sample_seq(rec, rd->take->bpf_produced);

	(void)cpu;
	if (seq <= rd->c->cut_seq)
		return 0; /* in an earlier snapshot already */
	if (!byte_buffer_append(&rd->take->kernel, rec, size))
		return -ENOMEM;
	rd->take->counts.held++;
	rd->take->newest_seq = seq;
	return 0;
}

/* Takes what one CPU holds and the counts of its period; the cut is the
 * newest sample held (or lost) when it was taken. */
static int take_cpu(struct flight_recorder *f, struct flight_cpu *c, struct cpu_take *t)
{
	uint64_t cut;

	if (!f->kernel_rings) {
		if (staging_ring_snapshot(&c->staging, &t->held, f->overlap))
			return -ENOMEM;
		t->counts.held = t->held.held;
		t->counts.overwritten = t->held.overwritten;
		t->counts.lost = t->held.lost;
		t->lost_time = t->held.lost_time;
		cut = t->held.seq;
	} else {
		struct kernel_reader rd = { f, c, t };
		long n;

		/* an overwrite ring loses samples only while paused: what the
		 * BPF side counted lost before this pause came after the
		 * previous cut */
		if (f->ops.bpf_counts(f->ops.ctx, c->cpu, &t->bpf_produced, &t->bpf_lost))
			return -EIO;
		n = f->ops.read_kernel_ring(f->ops.ctx, c->cpu, on_kernel_sample, &rd);
		if (n < 0)
			return (int)n;
		t->counts.lost = t->bpf_lost - c->cut_bpf_lost;
		t->lost_time = 0;
		cut = t->counts.held ? t->newest_seq : c->cut_seq + t->counts.lost;
		/* the kernel overwrites without counting: the rest of what
		 * was produced since the previous cut */
		t->counts.overwritten = cut - c->cut_seq - t->counts.held - t->counts.lost;
		if (!f->overlap)
			c->cut_bpf_lost = t->bpf_lost;
	}
	t->counts.produced = cut - c->cut_seq;
	if (!f->overlap)
		c->cut_seq = cut;
	pthread_mutex_lock(&f->lock);
	if (c->sideband.len && !byte_buffer_append(&t->sideband, c->sideband.data, c->sideband.len)) {
		pthread_mutex_unlock(&f->lock);
		return -ENOMEM;
	}
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* A stream of records in a buffer, oldest first. */
struct cursor {
	const uint8_t *at, *end;
};

static const struct perf_event_header *cursor_peek(const struct cursor *c)
{
	return c->at < c->end ? (const struct perf_event_header *)c->at : NULL;
}

/* The CPU's file: side-band, held samples and the LOST record merged by time. */
static int write_cpu_file(struct flight_recorder *f, int dirfd, const char *dirpath,
			  const struct flight_cpu *c, const struct cpu_take *t, char *err,
			  size_t errlen)
{
	const uint8_t *held = f->kernel_rings ? t->kernel.data : t->held.data;
	size_t held_len = f->kernel_rings ? t->kernel.len : t->held.len;
	struct cursor side = { t->sideband.data, t->sideband.data + t->sideband.len };
	struct cursor samples = { held, held + held_len };
	uint8_t lost[RECORDING_LOST_MAX];
	size_t lost_size = 0;
	struct perf_data_stream out;
	char name[32];
	int fd, ret = 0;

	if (t->counts.lost) {
		uint64_t time = t->lost_time;

		/* perfbuf losses happened during the previous pause: timed
		 * before the first sample held */
		if (!time && cursor_peek(&samples))
			time = recording_record_time(cursor_peek(&samples));
		lost_size = recording_lost_record(lost, sizeof(lost), PERF_RECORD_LOST_SAMPLES,
						  f->sample_lost_id, t->counts.lost, time, c->cpu);
	}
	snprintf(name, sizeof(name), "data.cpu%d", c->cpu);
	fd = output_file_create(dirfd, dirpath, name, err, errlen);
	if (fd < 0)
		return fd;
	if (perf_data_stream_init(&out, fd, STREAM_BUFFER_BYTES)) {
		close(fd);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		const struct perf_event_header *a = cursor_peek(&side), *b = cursor_peek(&samples);
		const struct perf_event_header *next = a;
		struct cursor *from = &side;

		if (!a || (b && recording_record_time(b) < recording_record_time(a))) {
			next = b;
			from = &samples;
		}
		if (lost_size && (!next || recording_record_time(lost) <= recording_record_time(next))) {
			if (perf_data_stream_append(&out, lost, lost_size))
				break;
			lost_size = 0;
			continue;
		}
		if (!next)
			break;
		if (perf_data_stream_append(&out, next, next->size))
			break;
		from->at += next->size;
	}
	if (out.error || perf_data_stream_close(&out)) {
		rt_format(err, errlen, "cannot write %s/%s: %s", dirpath, name, strerror(out.error));
		ret = out.error ? -out.error : -EIO;
	}
	return ret;
}

static int write_accounting(int dirfd, const char *dirpath, const struct flight_recorder *f,
			    const struct cpu_take *takes, const char *name, const char *reason,
			    char *err, size_t errlen)
{
	struct flight_accounting all = { 0 };
	int fd = output_file_create(dirfd, dirpath, "accounting", err, errlen);
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");

	if (!out) {
		if (fd >= 0)
			close(fd);
		return fd < 0 ? fd : -ENOMEM;
	}
	fprintf(out, "# ringtrace flight-recorder %s, taken on %s\n", name, reason);
	fprintf(out, "# per CPU, since the %s: produced = held + overwritten + lost\n",
		f->overlap ? "start (snapshots overlap)" : "previous snapshot");
	fprintf(out, "# transport %s: overwritten %s\n", f->kernel_rings ? "perfbuf" : "ringbuf",
		f->kernel_rings ? "= produced - held - lost (the kernel overwrote them uncounted)"
				: "counted by the staging ring");
	fprintf(out, "%-6s %14s %14s %14s %14s\n", "cpu", "produced", "held", "overwritten", "lost");
	for (unsigned int i = 0; i < f->nr; i++) {
		const struct flight_accounting *k = &takes[i].counts;

		fprintf(out, "%-6d %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n",
			f->cpus[i].cpu, k->produced, k->held, k->overwritten, k->lost);
		accounting_add(&all, k);
	}
	fprintf(out, "%-6s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", "all",
		all.produced, all.held, all.overwritten, all.lost);
	if (fclose(out)) {
		rt_format(err, errlen, "cannot write %s/accounting: %s", dirpath, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Takes every CPU, then writes snapshot-NNN: header, per-CPU files, the
 * accounting; prints the counts. */
static int write_snapshot(struct flight_recorder *f, unsigned int number, const char *reason,
			  char *err, size_t errlen)
{
	struct cpu_take *takes = calloc(f->nr, sizeof(*takes));
	char name[32], path[4096];
	struct flight_accounting all = { 0 };
	int dirfd = -1, ret;

	if (!takes) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* every CPU is cut first, the files written after */
	for (unsigned int i = 0; i < f->nr; i++) {
		int r = take_cpu(f, &f->cpus[i], &takes[i]);

		if (r) {
			rt_format(err, errlen, "cannot take the snapshot of CPU %d: %s", f->cpus[i].cpu,
				  strerror(-r));
			ret = r;
			goto out;
		}
	}
	snprintf(name, sizeof(name), "snapshot-%03u", number);
	snprintf(path, sizeof(path), "%s/%s", f->dirpath, name);
	dirfd = output_subdir_create(f->dirfd, f->dirpath, name, err, errlen);
	if ((ret = dirfd) < 0 || (ret = f->ops.write_header(f->ops.ctx, dirfd, path, err, errlen)))
		goto out;
	for (unsigned int i = 0; i < f->nr; i++)
		if ((ret = write_cpu_file(f, dirfd, path, &f->cpus[i], &takes[i], err, errlen)))
			goto out;
	if ((ret = write_accounting(dirfd, path, f, takes, name, reason, err, errlen)))
		goto out;
	for (unsigned int i = 0; i < f->nr; i++) {
		const struct flight_accounting *k = &takes[i].counts;

		if (k->produced != k->held + k->overwritten + k->lost) {
			f->mismatches++;
			rt_warn("%s: CPU %d: produced %" PRIu64 " != held %" PRIu64 " + overwritten %" PRIu64
				" + lost %" PRIu64, name, f->cpus[i].cpu, k->produced, k->held,
				k->overwritten, k->lost);
		}
		accounting_add(&all, k);
		if (f->overlap)
			f->cpus[i].totals = *k; /* counts since the start */
		else
			accounting_add(&f->cpus[i].totals, k);
	}
	/* overlapping snapshots are taken often (a profile each): said when
	 * something was lost */
	if (!f->overlap || all.lost)
		rt_info("ringtrace: %s (%s): %" PRIu64 " samples produced = %" PRIu64 " held + %" PRIu64
			" overwritten + %" PRIu64 " lost%s", path, reason, all.produced, all.held,
			all.overwritten, all.lost, f->overlap ? " since the start" : "");
	ret = 0;
out:
	if (dirfd >= 0)
		close(dirfd);
	for (unsigned int i = 0; i < f->nr; i++) {
		staging_snapshot_free(&takes[i].held);
		byte_buffer_free(&takes[i].kernel);
		byte_buffer_free(&takes[i].sideband);
	}
	free(takes);
	return ret;
}

static void *snapshot_thread(void *arg)
{
	struct flight_recorder *f = arg;

	pthread_mutex_lock(&f->lock);
	for (;;) {
		char reason[sizeof(f->reason)];
		unsigned int number;
		char err[512];

		while (!f->stopping && f->requested <= f->written)
			pthread_cond_wait(&f->wake, &f->lock);
		if (f->requested <= f->written)
			break;
		number = f->written;
		memcpy(reason, f->reason, sizeof(reason));
		pthread_mutex_unlock(&f->lock);
		err[0] = '\0';
		if (write_snapshot(f, number, reason, err, sizeof(err)) && !atomic_load(&f->error)) {
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


