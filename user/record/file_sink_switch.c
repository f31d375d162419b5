/* SPDX-License-Identifier: GPL-2.0-only */
/* file_sink_switch.c: --switch-output in the per-CPU files: the drain thread
 * marks where each CPU's records change output, the writer switches there. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "format/perf_record.h"
#include "lib/log.h"
#include "record/file_sink_state.h"
#include "sys/output_dir.h"

/* DIR/data.cpuN of an output and its stream. */
int file_sink_open_stream(struct file_sink *f, struct cpu_output *o, int dirfd, char *err,
			  size_t errlen)
{
	char name[32];
	int fd;

	snprintf(name, sizeof(name), "data.cpu%d", o->cpu);
	fd = output_file_create(dirfd, f->dirpath, name, err, errlen);
	if (fd < 0)
		return fd;
	if (perf_data_stream_init(&o->stream, fd, STREAM_BUFFER_BYTES)) {
		close(fd);
		o->stream.fd = -1;
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The counts of o's file since its output began. */
static struct file_sink_output_cpu output_counts(const struct cpu_output *o)
{
	return (struct file_sink_output_cpu){
		.cpu = o->cpu,
		.samples = o->samples_written - o->base.samples,
		.lost = o->items_written[STAGING_SAMPLES] - o->samples_written - o->base.lost,
		.unwritten = o->samples_unwritten - o->base.unwritten,
		.bytes = o->stream.bytes_written,
	};
}

/* A switch failed: the records after it are counted as never written. */
static void switch_failed(struct file_sink *f, const char *err, int r)
{
	snprintf(f->switch_error, sizeof(f->switch_error), "%s", err);
	for (unsigned int i = 0; i < f->nr; i++)
		if (!f->cpus[i].stream.buf)
			f->cpus[i].stream.error = r < 0 ? -r : EIO;
	file_sink_set_error(f, f->nr ? f->cpus[0].cpu : 0, r < 0 ? -r : EIO);
}

/* Writer (or file_finish, at_exit): every CPU's records before the switch
 * are written; closes the output's files, hands them to the rotation, and
 * unless at_exit opens the next output's, each starting with the side-band
 * its samples may need. */
void file_sink_switch_now(struct file_sink *f, bool at_exit)
{
	char err[512] = "";
	int dirfd;

	for (unsigned int i = 0; i < f->nr; i++) {
		struct cpu_output *o = &f->cpus[i];

		/* what was staged before the switch, up to its mark */
		if (!at_exit)
			while (file_sink_empty_one(f, o))
				;
		if (o->stream.fd >= 0)
			file_sink_flush_one(f, o);
		f->counts[i] = output_counts(o);
		if (o->stream.fd >= 0 && perf_data_stream_close(&o->stream) && !atomic_load(&f->error))
			file_sink_set_error(f, o->cpu, o->stream.error);
		if (!at_exit) {
			o->bytes_before += o->stream.bytes_written;
			o->stream.bytes_written = 0;
		}
		o->base = (struct file_sink_output_cpu){
			.samples = o->samples_written,
			.lost = o->items_written[STAGING_SAMPLES] - o->samples_written,
			.unwritten = o->samples_unwritten,
		};
	}
	dirfd = f->rotation->switch_output(f->rotation->ctx, f->counts, f->nr, at_exit, err,
					   sizeof(err));
	if (at_exit) {
		if (dirfd < 0)
			switch_failed(f, err, dirfd);
		return;
	}
	if (dirfd < 0) {
		switch_failed(f, err, dirfd);
	} else {
		/* the cut's side-band, with what the outputs before had */
		if (sideband_history_take(&f->history))
			rt_warn("out of memory keeping the side-band for the next outputs");
		for (unsigned int i = 0; i < f->nr; i++) {
			struct cpu_output *o = &f->cpus[i];
			const struct byte_buffer *k = sideband_history_kept(&f->history, i);
			int r = file_sink_open_stream(f, o, dirfd, err, sizeof(err));

			if (r) {
				switch_failed(f, err, r);
				break;
			}
			for (size_t at = 0; at + sizeof(struct perf_event_header) <= k->len;) {
				const struct perf_event_header *h = (const void *)(k->data + at);

				if (h->size < sizeof(*h) || at + h->size > k->len)
					break;
				perf_data_stream_append(&o->stream, h, h->size);
				at += h->size;
			}
		}
	}
	atomic_store_explicit(&f->switch_pending, false, memory_order_release);
}

int file_sink_switch(struct record_sink *s)
{
	struct file_sink *f = (struct file_sink *)s;

	if (!f->rotation || atomic_load_explicit(&f->switch_pending, memory_order_acquire))
		return -EBUSY;
	/* the producer's own head: every record staged so far is below it */
	for (unsigned int i = 0; i < f->nr; i++)
		f->cpus[i].switch_at =
			atomic_load_explicit(&f->cpus[i].staging.head, memory_order_relaxed);
	sideband_history_cut(&f->history);
	f->staged_bytes = 0;
	atomic_store_explicit(&f->switch_pending, true, memory_order_release);
	handoff_wake_signal(&f->wake);
	return 0;
}

uint64_t file_sink_output_bytes(const struct record_sink *s)
{
	return ((const struct file_sink *)s)->staged_bytes;
}
