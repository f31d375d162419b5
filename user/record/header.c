/* SPDX-License-Identifier: GPL-2.0-only */
/* header.c: the header file of a recording, DIR/data: the attrs of its events
 * and of the tracking event with their ids, the side-band synthesized for what
 * existed at the start, and the features (tracepoint formats among them). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "format/probe_format.h"
#include "format/tracing_data.h"
#include "lib/log.h"
#include "record/session.h"
#include "record/synthesize.h"
#include "sys/output_dir.h"

/* Whether pid is among the nr_pids at pids (any, when nr_pids is 0: a
 * recording of the whole machine). */
static bool among(uint32_t pid, const uint32_t *pids, unsigned int nr_pids)
{
	for (unsigned int i = 0; i < nr_pids; i++)
		if (pids[i] == pid)
			return true;
	return !nr_pids;
}

/* The CPython processes and JVMs running already (those -p or -t names, if
 * it does), from the MMAP2s of the start's side-band: the ranges of their
 * Python and Java frames into s->interp_rec (a JVM's layout read now, while
 * ringtrace holds the capabilities to). */
static void note_interpreters(struct session *s, const uint32_t *procs, unsigned int nr_procs)
{
	const void *at = s->synthesized.data;
	const void *end = (const uint8_t *)at + s->synthesized.len;
	struct perf_mmap m;

	if (!s->python.base.on && !s->hotspot.base.on && !s->v8.base.on)
		return;
	while (perf_next_mmap2(&at, end, RECORDING_SAMPLE_ID_TYPE, &m)) {
		if (!among(m.pid, procs, nr_procs))
			continue;
		python_procs_note_mmap(&s->python, &m, NULL, &s->interp_rec);
		hotspot_procs_note_mmap(&s->hotspot, &m, NULL, &s->interp_rec);
		v8_procs_note_mmap(&s->v8, &m, NULL, &s->interp_rec);
	}
}

int session_synthesize(struct session *s)
{
	const struct record_options *o = s->opts;
	struct perf_sample_id sid = { .id = s->tracking_id };
	struct tracing_data_event tps[EVENT_SPEC_MAX];
	struct byte_buffer formats[EVENT_SPEC_MAX] = { { 0 } };
	unsigned int nr_tps = 0, nr_procs;
	struct process_scope scope;
	const uint32_t *procs;
	int ret = 0;

	/* (not under -q: export -g's child, whose exporter says it once) */
	if (synthesize_kernel_mmap(&s->synthesized, RECORDING_SAMPLE_ID_TYPE, &sid, s->error,
				   sizeof(s->error)) && !o->quiet)
		rt_warn("%s; kernel frames will show as [unknown]", s->error);
	s->error[0] = '\0';
	/* the processes of the recording's scope, as its side-band */
	procs = record_target_processes(&s->target, &nr_procs);
	scope = (struct process_scope){ .pids = procs, .nr_pids = nr_procs };
	if (s->target.has_cgroup)
		scope.cgroup = s->target.cgroup.relative;
	if (synthesize_processes(&s->synthesized, RECORDING_SAMPLE_ID_TYPE, &sid, &s->mapped,
				 &s->build_ids,
				 o->stack_user > 0	    ? MAPPINGS_READABLE
				 : record_copies_stacks(o) ? MAPPINGS_EH_FRAME
							   : MAPPINGS_EXEC,
				 &scope, s->has_workload ? (uint32_t)s->workload.pid : 0,
				 &s->start_abandoned) < 0 ||
	    (s->cgroup_field &&
	     synthesize_cgroups(&s->synthesized, RECORDING_SAMPLE_ID_TYPE, &sid) < 0)) {
		rt_format(s->error, sizeof(s->error), "out of memory listing processes");
		return -ENOMEM;
	}
	/* JITs running already: their perf-PID.map is kept */
	jit_maps_note_records(&s->jit_maps, s->synthesized.data, s->synthesized.len);
	note_interpreters(s, procs, nr_procs);
	if (s->interp_rec.len &&
	    !byte_buffer_append(&s->synthesized, s->interp_rec.data, s->interp_rec.len)) {
		rt_format(s->error, sizeof(s->error), "out of memory listing processes");
		return -ENOMEM;
	}
	byte_buffer_reset(&s->interp_rec);
	/* tracepoint formats, for perf script: tracefs is read only if needed;
	 * the user probes' are ringtrace's own, nothing is defined in tracefs */
	for (unsigned int i = 0; i < o->nr_events; i++) {
		const struct event_desc *ev = &o->events[i];

		if (event_is_user_probe(ev)) {
			struct probe_format f = {
				.name = ev->tracepoint,
				.id = (uint16_t)ev->format.id,
				.retprobe = ev->kind == EVENT_URETPROBE,
				.nr_args = ev->probe.nr_args,
				.arg_signed = ev->probe.arg_signed,
				.args_decimal = ev->kind == EVENT_USDT,
			};

			if (probe_format_text(&formats[nr_tps], &f)) {
				rt_format(s->error, sizeof(s->error), "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			tps[nr_tps] = (struct tracing_data_event){ ev->system, ev->tracepoint,
								   (const char *)formats[nr_tps].data,
								   formats[nr_tps].len };
			nr_tps++;
		} else if (ev->kind == EVENT_TRACEPOINT) {
			tps[nr_tps++] = (struct tracing_data_event){ ev->system, ev->tracepoint,
								   NULL, 0 };
		}
	}
	if (nr_tps)
		ret = tracing_data_build(&s->tracing, tps, nr_tps, s->error, sizeof(s->error));
out:
	for (unsigned int i = 0; i < nr_tps; i++)
		byte_buffer_free(&formats[i]);
	return ret;
}

int session_write_header(struct session *s, int dirfd, const char *dirpath, char *err,
			 size_t errlen)
{
	const struct record_options *o = s->opts;
	unsigned int nr = o->nr_events + 1;
	struct perf_data_event evs[EVENT_SPEC_MAX + 1];
	struct perf_data_header h = { .events = evs, .nr_events = nr };
	struct timespec res = { 0 };
	struct utsname u;
	int fd, ret;

	for (unsigned int i = 0; i < o->nr_events; i++) {
		memset(&evs[i], 0, sizeof(evs[i]));
		recording_event_attr(&evs[i].attr, &s->file_events[i]);
		evs[i].name = o->events[i].name;
		evs[i].ids = &s->sampler_events[i].id;
		evs[i].nr_ids = 1;
	}
	memset(&evs[o->nr_events], 0, sizeof(evs[0]));
	recording_tracking_attr(&evs[o->nr_events].attr, s->cgroup_field, o->stack_user > 0);
	evs[o->nr_events].name = "dummy:HG";
	/* every tracking event's: those of tasks and of CPUs */
	evs[o->nr_events].ids = s->sideband.ids;
	evs[o->nr_events].nr_ids = s->sideband.nr_ids;

	uname(&u);
	clock_getres(CLOCK_MONOTONIC, &res);
	h.hostname = u.nodename;
	h.osrelease = u.release;
	h.arch = u.machine;
	h.version = "ringtrace " RINGTRACE_VERSION;
	h.nr_cpus_available = (uint32_t)s->nr_possible;
	h.nr_cpus_online = s->cpus.nr;
	h.argc = o->argc;
	h.argv = o->argv;
	h.clockid_res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	if (s->tracing.len) {
		h.tracing_data = s->tracing.data;
		h.tracing_data_size = s->tracing.len;
	}
	fd = output_file_create(dirfd, dirpath, "data", err, errlen);
	if (fd < 0)
		return fd;
	ret = perf_data_write_header(fd, &h, s->synthesized.data, s->synthesized.len, err, errlen);
	if (close(fd) && !ret) {
		rt_format(err, errlen, "cannot write %s/data: %s", dirpath, strerror(errno));
		ret = -errno;
	}
	return ret;
}
