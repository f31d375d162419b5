/* SPDX-License-Identifier: GPL-2.0-only */
/* flight_snapshot.c: one snapshot of a flight recording: every CPU cut, its
 * samples and side-band written as a perf.data directory with the exact
 * accounting, and the side-band of processes long gone dropped. */
#include "record/flight_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "format/recording_layout.h"
#include "lib/log.h"
#include "lib/monotonic.h"
#include "record/flight_sideband.h"
#include "sys/output_dir.h"

/* Overlapping snapshots say their losses at most this often. */
#define OVERLAP_LOSS_PERIOD_NS (60ULL * 1000000000ULL)

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

/* The CPU's file: side-band, held samples (from since_ns on) and the LOST
 * record merged by time; the samples left out counted in t->older. */
static int write_cpu_file(struct flight_recorder *f, int dirfd, const char *dirpath,
			  const struct flight_cpu *c, struct cpu_take *t, uint64_t since_ns,
			  char *err, size_t errlen)
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
		if (from == &samples && since_ns && next->type == PERF_RECORD_SAMPLE &&
		    recording_record_time(next) < since_ns) {
			t->older++;
		} else if (perf_data_stream_append(&out, next, next->size)) {
			break;
		}
		from->at += next->size;
	}
	if (out.error || perf_data_stream_close(&out)) {
		rt_format(err, errlen, "cannot write %s/%s: %s", dirpath, name, strerror(out.error));
		ret = out.error ? -out.error : -EIO;
	}
	return ret;
}

/* One row of the accounting: cpu's counts, and with a window the older ones. */
static void put_row(FILE *out, const char *cpu, const struct flight_accounting *k, bool window,
		    uint64_t older)
{
	fprintf(out, "%-6s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64, cpu, k->produced,
		k->held, k->overwritten, k->lost);
	if (window)
		fprintf(out, " %14" PRIu64, older);
	fputc('\n', out);
}

static int write_accounting(int dirfd, const char *dirpath, const struct flight_recorder *f,
			    const struct cpu_take *takes, const char *name, const char *reason,
			    uint64_t since_ns, char *err, size_t errlen)
{
	struct flight_accounting all = { 0 };
	uint64_t older = 0;
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
	fprintf(out, "# transport %s: overwritten %s\n", f->transport,
		f->kernel_rings ? "= produced - held - lost (the ring overwrote them uncounted)"
				: "counted by the staging ring");
	if (since_ns)
		fprintf(out, "# asked for the samples from %" PRIu64 " ns on: older, held but not written\n",
			since_ns);
	fprintf(out, "%-6s %14s %14s %14s %14s%s\n", "cpu", "produced", "held", "overwritten", "lost",
		since_ns ? "          older" : "");
	for (unsigned int i = 0; i < f->nr; i++) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", f->cpus[i].cpu);
		put_row(out, cpu, &takes[i].counts, since_ns, takes[i].older);
		accounting_add(&all, &takes[i].counts);
		older += takes[i].older;
	}
	put_row(out, "all", &all, since_ns, older);
	if (fclose(out)) {
		rt_format(err, errlen, "cannot write %s/accounting: %s", dirpath, strerror(errno));
		return -errno;
	}
	return 0;
}

/* The time of the first sample among len bytes of records, or UINT64_MAX. */
static uint64_t first_sample_time(const uint8_t *data, size_t len)
{
	uint64_t time;

	for (size_t at = 0; at + sizeof(struct perf_event_header) <= len;) {
		const struct perf_event_header *h = (const void *)(data + at);

		if (h->size < sizeof(*h) || at + h->size > len)
			break;
		if (h->type == PERF_RECORD_SAMPLE)
			return perf_sample_time(h, RECORDING_SAMPLE_TYPE, &time) ? UINT64_MAX : time;
		at += h->size;
	}
	return UINT64_MAX;
}

/* Once a CPU's side-band passes FLIGHT_SIDEBAND_PRUNE_BYTES, that of the
 * processes that exited well before the oldest sample this snapshot held is
 * dropped: what comes after it (and with overlapping snapshots, what the
 * rings still hold) is newer. */
static void prune_sideband(struct flight_recorder *f, const struct cpu_take *takes)
{
	struct byte_buffer **bufs = calloc(f->nr, sizeof(*bufs));
	uint64_t oldest = UINT64_MAX;
	bool big = false;

	for (unsigned int i = 0; bufs && i < f->nr; i++) {
		const uint8_t *held = f->kernel_rings ? takes[i].kernel.data : takes[i].held.data;
		size_t len = f->kernel_rings ? takes[i].kernel.len : takes[i].held.len;
		uint64_t t = held ? first_sample_time(held, len) : UINT64_MAX;

		bufs[i] = &f->cpus[i].sideband;
		big |= bufs[i]->len > FLIGHT_SIDEBAND_PRUNE_BYTES;
		oldest = t < oldest ? t : oldest;
	}
	if (bufs && big && oldest != UINT64_MAX && oldest > FLIGHT_SIDEBAND_MARGIN_NS) {
		pthread_mutex_lock(&f->lock);
		flight_sideband_prune(bufs, f->nr, oldest - FLIGHT_SIDEBAND_MARGIN_NS);
		pthread_mutex_unlock(&f->lock);
	}
	free(bufs);
}


/* Overlapping snapshots' losses (counted since the start) to be said now:
 * more than when last said, and that a minute or more ago. */
static bool overlap_loss_to_say(struct flight_recorder *f, uint64_t lost)
{
	uint64_t now = monotonic_ns();

	if (lost <= f->lost_said || (f->lost_said_ns && now - f->lost_said_ns < OVERLAP_LOSS_PERIOD_NS))
		return false;
	f->lost_said = lost;
	f->lost_said_ns = now;
	return true;
}
/* Takes every CPU, then writes snapshot-NNN: header, per-CPU files, the
 * accounting; prints the counts; keeps the side-band bounded. */
int flight_write_snapshot(struct flight_recorder *f, unsigned int number, const char *reason,
			  uint64_t since_ns, char *err, size_t errlen)
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
		if ((ret = write_cpu_file(f, dirfd, path, &f->cpus[i], &takes[i], since_ns, err,
					  errlen)))
			goto out;
	if ((ret = write_accounting(dirfd, path, f, takes, name, reason, since_ns, err, errlen)))
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
	 * more was lost since it was last said, at most once a minute (the
	 * exporter's requests are summed up a minute at a time too) */
	if (!f->overlap || overlap_loss_to_say(f, all.lost))
		rt_info("ringtrace: %s (%s): %" PRIu64 " samples produced = %" PRIu64 " held + %" PRIu64
			" overwritten + %" PRIu64 " lost%s", path, reason, all.produced, all.held,
			all.overwritten, all.lost, f->overlap ? " since the start" : "");
	prune_sideband(f, takes);
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
