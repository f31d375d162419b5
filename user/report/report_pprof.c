/* SPDX-License-Identifier: GPL-2.0-only */
/* report_pprof.c: report --pprof: each sample of a recording with its frames'
 * mappings and its labels into a pprof profile, written gzipped to a file. */
#include "report/report_pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"
#include "report/folded_name.h"
#include "report/report_output.h"

/* As report's stacks: deeper frames are left out. */
#define PPROF_MAX_FRAMES 512

int report_pprof_init(struct report_pprof *rp, const struct recording *rec,
		      struct container_names *names, uint64_t *names_budget_ns)
{
	memset(rp, 0, sizeof(*rp));
	pprof_builder_init(&rp->profile);
	rp->profile.names = names;
	rp->profile.names_budget_ns = names_budget_ns;
	rp->frames = calloc(PPROF_MAX_FRAMES, sizeof(*rp->frames));
	for (unsigned int e = 0; e < rec->in.nr_events; e++)
		if (!recording_is_tracking(rec, e) &&
		    (rec->in.events[e].attr.sample_type & PERF_SAMPLE_CGROUP))
			rp->cgroups = true;
	return rp->frames ? 0 : -ENOMEM;
}

void report_pprof_free(struct report_pprof *rp)
{
	pprof_builder_free(&rp->profile);
	free(rp->frames);
}

struct frame_walk {
	struct report_pprof *rp;
	struct recording *rec;
	uint32_t pid;
};

static int on_frame(void *ctx, uint64_t ip, const struct resolved *where)
{
	struct frame_walk *w = ctx;
	struct pprof_frame *f;
	const struct dso *dso = NULL;
	const struct map *m = NULL;

	if (w->rp->nr_frames == PPROF_MAX_FRAMES)
		return 1;
	f = &w->rp->frames[w->rp->nr_frames];
	memset(f, 0, sizeof(*f));
	f->ip = ip;
	f->function = folded_frame_name(&w->rec->as, where, false);
	if (!f->function)
		return -ENOMEM;
	f->dso = where->dso;
	if (where->kernel) {
		dso = w->rec->as.kernel;
	} else if (where->mapped && (m = address_space_find_map(&w->rec->as, w->pid, ip))) {
		dso = m->dso;
		f->mapped = true;
		f->map_start = m->start;
		f->map_end = m->end;
		f->map_pgoff = m->pgoff;
		f->dso = dso->path; /* a JIT's frames: the anonymous mapping's */
	}
	if (dso && dso->build_id_size) {
		f->build_id = dso->build_id;
		f->build_id_size = dso->build_id_size;
	}
	w->rp->nr_frames++;
	return 0;
}

int report_pprof_add(struct report_pprof *rp, struct recording *rec, const struct perf_sample *s,
		     const char *comm, uint64_t period)
{
	struct frame_walk w = { rp, rec, s->pid };
	struct pprof_sample_labels labels = {
		.comm = comm, .pid = s->pid, .tid = s->tid, .cpu = s->cpu,
		.cgroup = rp->cgroups ? address_space_cgroup(&rec->as, s->cgroup) : NULL,
	};
	int r;

	rp->nr_frames = 0;
	r = recording_each_frame(rec, s, on_frame, &w);
	if (r < 0)
		return r;
	if (pprof_add_sample(&rp->profile, &labels, rp->frames, rp->nr_frames, period))
		return -ENOMEM;
	return 0;
}

/* When the recording started, in ns since the epoch: its header file is
 * written as it stops, so that file's modification time less its duration
 * (0, unknown, where the times put it before the epoch or past 2262). */
static int64_t start_time(const struct recording *rec, int64_t duration)
{
	char path[4096];
	struct stat st;
	int64_t mtime, start;

	snprintf(path, sizeof(path), "%s%s", rec->in.path, rec->in.is_dir ? "/data" : "");
	if (stat(path, &st) || __builtin_mul_overflow((int64_t)st.st_mtim.tv_sec, 1000000000, &mtime) ||
	    __builtin_add_overflow(mtime, st.st_mtim.tv_nsec, &mtime) ||
	    __builtin_sub_overflow(mtime, duration, &start) || start < 0)
		return 0;
	return start;
}

int report_pprof_write(struct report_pprof *rp, const struct recording *rec,
		       const struct perf_input_event *ev, int64_t time_nanos, int64_t duration_nanos,
		       const char *path, FILE *out, char *err, size_t errlen)
{
	const struct perf_event_attr *a = &ev->attr;
	bool clock = a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						       a->config == PERF_COUNT_SW_TASK_CLOCK);
	bool offcpu = ev->name && !strcmp(ev->name, "offcpu-time");
	struct pprof_header h = {
		/* off_cpu/nanoseconds: the OpenTelemetry eBPF profiler's type */
		.value_type = offcpu ? "off_cpu" : clock ? "cpu" : ev->name ? ev->name : "events",
		.value_unit = offcpu || clock ? "nanoseconds" : "count",
		/* the samples' span, as the recording's times give it */
		.duration_nanos = rec->last_time <= rec->first_time ? 0
				  : rec->last_time - rec->first_time > INT64_MAX
					  ? INT64_MAX
					  : (int64_t)(rec->last_time - rec->first_time),
		.comment = "ringtrace report --pprof",
	};
	char close_err[512];
	FILE *f;
	int ret, r;

	if (a->freq && a->sample_freq)
		h.period = clock ? (int64_t)(1000000000 / a->sample_freq) : 0;
	else
		h.period = (int64_t)a->sample_period;
	if (duration_nanos > 0) {
		h.time_nanos = time_nanos;
		h.duration_nanos = duration_nanos;
	} else {
		h.time_nanos = start_time(rec, h.duration_nanos);
	}
	f = report_output_open(path, false, out, err, errlen);
	if (!f)
		return errno ? -errno : -EIO;
	ret = pprof_write(&rp->profile, &h, f, err, errlen);
	if ((r = report_output_close(f, out, path, close_err, sizeof(close_err))) && !ret) {
		rt_format(err, errlen, "%s", close_err);
		ret = r;
	}
	return ret;
}
