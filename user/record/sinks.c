/* SPDX-License-Identifier: GPL-2.0-only */
/* sinks.c: where a recording's records go: the per-CPU files or the flight
 * recorder, then the caller's sinks (the exporter's, in export), and what
 * they are told of the recording (its record_source: counts per CPU, ring
 * fill, program runs, the unwinder's totals). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/bpf_stats.h"
#include "lib/log.h"
#include "record/file_sink.h"
#include "record/flight_recorder.h"
#include "record/session.h"

/* record_source: per CPU, what the BPF side produced and what was lost in
 * the kernel's ring or dropped by the sink. */
static size_t source_cpu_counts(void *ctx, struct capture_cpu_counts *out, size_t max)
{
	struct session *s = ctx;
	size_t n = 0;

	for (unsigned int i = 0; i < s->cpus.nr && n < max; i++, n++) {
		struct rt_cpu_counters c = { 0 };
		struct record_sink_totals t;

		bpf_sampler_counters(s->sampler, s->cpus.cpus[i], &c);
		session_sink_totals(s, s->cpus.cpus[i], &t);
		out[n] = (struct capture_cpu_counts){ s->cpus.cpus[i], c.produced, c.lost + t.lost,
						      t.overwritten };
	}
	return n;
}

/* The ring label of --metrics' ring fill: whose rings these are. */
static const char *ring_kind(enum transport_kind kind)
{
	return kind == TRANSPORT_PERFBUF ? "perf" : kind == TRANSPORT_RING ? "own" : "bpf";
}

static size_t source_rings(void *ctx, struct capture_ring_fill *out, size_t max)
{
	struct session *s = ctx;
	size_t n = 0;

	for (unsigned int i = 0; i < s->cpus.nr && n < max; i++) {
		struct record_sink_totals t;

		if (session_sink_totals(s, s->cpus.cpus[i], &t) && t.ring_capacity)
			out[n++] = (struct capture_ring_fill){ s->cpus.cpus[i], "staging", t.ring_used,
							       t.ring_capacity };
	}
	for (unsigned int i = 0; n < max; i++) {
		int cpu;
		uint64_t used, cap;

		if (bpf_sampler_ring_usage(s->sampler, i, &cpu, &used, &cap))
			break;
		out[n++] = (struct capture_ring_fill){ cpu, ring_kind(s->opts->transport), used, cap };
	}
	return n;
}

static size_t source_programs(void *ctx, struct bpf_program_runs *out, size_t max)
{
	struct session *s = ctx;

	return bpf_sampler_program_stats(s->sampler, out, max);
}

static int source_unwind(void *ctx, struct rt_unwind_counters *out)
{
	struct session *s = ctx;

	return bpf_sampler_unwind_counters(s->sampler, out);
}

static int flight_write_header(void *ctx, int dirfd, const char *dirpath, char *err,
			       size_t errlen)
{
	struct session *s = ctx;
	int r = session_write_header(s, dirfd, dirpath, err, errlen);

	/* the names of Python and Java frames, as the recording's end writes them */
	if (!r) {
		python_procs_write_maps(&s->python, dirfd, dirpath);
		hotspot_procs_write_maps(&s->hotspot, dirfd, dirpath);
		v8_procs_write_maps(&s->v8, dirfd, dirpath);
	}
	return r;
}

static int flight_bpf_counts(void *ctx, int cpu, uint64_t *produced, uint64_t *lost)
{
	struct session *s = ctx;
	struct rt_cpu_counters c;
	int r;

	if ((r = bpf_sampler_counters(s->sampler, cpu, &c)))
		return r;
	*produced = c.produced;
	*lost = c.lost;
	return 0;
}

static uint64_t flight_unreported_losses(void *ctx, int cpu, uint64_t *time)
{
	struct session *s = ctx;

	return bpf_sampler_unreported_losses(s->sampler, cpu, time);
}

static long flight_read_kernel_ring(void *ctx, int cpu,
				    int (*sample)(void *fctx, int cpu, const void *rec, size_t size),
				    void *fctx)
{
	struct session *s = ctx;
	struct transport_sink sink = { sample, NULL, fctx };

	return bpf_sampler_snapshot(s->sampler, cpu, &sink);
}

int session_create_sinks(struct session *s)
{
	const struct record_options *o = s->opts;
	struct record_sink *primary;

	if (o->overwrite) {
		struct flight_recorder_config cfg = {
			.cpus = &s->cpus,
			.nr_possible = s->nr_possible,
			.staging_bytes = o->staging_bytes,
			.kernel_rings = o->transport != TRANSPORT_RINGBUF,
			.transport = transport_name(o->transport),
			.dirfd = s->out.fd,
			.dirpath = o->output,
			.max_snapshots = o->max_snapshots,
			.overlap = o->snapshots_overlap,
			.sample_lost_id = s->sampler_events[0].id,
			.ops = {
				.write_header = flight_write_header,
				.bpf_counts = flight_bpf_counts,
				.read_kernel_ring = o->transport != TRANSPORT_RINGBUF
							    ? flight_read_kernel_ring
							    : NULL,
				.unreported_losses = o->transport == TRANSPORT_RINGBUF
							     ? flight_unreported_losses
							     : NULL,
				.ctx = s,
			},
		};

		primary = flight_recorder_create(&cfg, s->error, sizeof(s->error));
	} else {
		struct file_sink_config cfg = {
			.cpus = &s->cpus,
			.dirfd = s->out.fd,
			.dirpath = o->output,
			.staging_bytes = o->staging_bytes,
			.sample_lost_id = s->sampler_events[0].id,
			.sideband_lost_id = s->tracking_id,
			.writer_delay_ms = o->debug_writer_delay_ms,
			.rotation = s->rotation.on ? &s->rotation.ops : NULL,
		};

		primary = file_sink_create(&cfg, s->error, sizeof(s->error));
	}
	if (!primary)
		return -EIO; /* what failed is in s->error */
	s->sinks[0] = primary;
	return 0;
}

int session_adopt_sinks(struct session *s)
{
	struct record_options *o = s->opts;

	bool fit = o->nr_sinks + 1 <= SESSION_MAX_SINKS;

	/* the primary sink goes first: slot 0 is kept for it */
	s->nr_sinks = 1;
	for (unsigned int i = 0; i < o->nr_sinks; i++)
		if (fit)
			s->sinks[s->nr_sinks++] = o->sinks[i];
		else
			o->sinks[i]->ops->free(o->sinks[i]);
	o->nr_sinks = 0;
	if (!fit)
		rt_format(s->error, sizeof(s->error), "too many sinks for one recording");
	return fit ? 0 : -E2BIG;
}

int session_open_sinks(struct session *s)
{
	s->source = (struct record_source){
		.cpu_counts = source_cpu_counts,
		.rings = source_rings,
		.programs = source_programs,
		.unwind = source_unwind,
		.transport = transport_name(s->opts->transport),
		.sample_id_type = RECORDING_SAMPLE_ID_TYPE,
		.samples_carry_cgroup = s->cgroup_field,
		.ctx = s,
	};
	for (unsigned int i = 0; i < s->opts->nr_events; i++)
		if (s->sampler_events[i].offcpu)
			s->source.offcpu_id = s->sampler_events[i].id;
	for (unsigned int i = 0; i < s->nr_sinks; i++) {
		struct record_sink *k = s->sinks[i];
		int r;

		if (k->ops->open && (r = k->ops->open(k, &s->source, s->error, sizeof(s->error))))
			return r;
		if (k->ops->initial_sideband)
			k->ops->initial_sideband(k, s->synthesized.data, s->synthesized.len);
	}
	return 0;
}
