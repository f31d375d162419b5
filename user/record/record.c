/* record.c: a recording session: resolves what and where to record, opens the
 * events and files, drains rings into per-CPU files until stopped, prints totals. */
#include "record/record.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "capture/bpf_sampler.h"
#include "lib/byte_buffer.h"
#include "sys/cpu_list.h"
#include "capture/bpf_stats.h"
#include "export/exporter.h"
#include "record/flight_recorder.h"
#include "lib/log.h"
#include "export/metrics_server.h"
#include "sys/output_dir.h"
#include "format/perf_data_writer.h"
#include "format/perf_record.h"
#include "sys/privileges.h"
#include "export/record_metrics.h"
#include "record/record_target.h"
#include "record/record_writer.h"
#include "capture/sideband.h"
#include "capture/snapshot_trigger.h"
#include "record/synthesize.h"
#include "sys/tracefs.h"
#include "format/tracing_data.h"
#include "record/workload.h"

/* Every record's sample_id trailer: the event id tells the events apart. */
#define SAMPLE_ID_TYPE \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
#define SAMPLE_TYPE (PERF_SAMPLE_IP | SAMPLE_ID_TYPE | PERF_SAMPLE_PERIOD)
/* The ids of ringtrace's own events ("RT" and the event number). */
#define EVENT_ID_BASE 0x5254000000000000ULL
#define DRAIN_INTERVAL_MS 100
#define PID_FILE "ringtrace.pid"

enum epoll_tag { TAG_SIGNAL, TAG_SAMPLER, TAG_SIDEBAND, TAG_TRIGGER };

/* What the drain thread dropped per CPU because its staging ring was full. */
struct staging_drops {
	uint64_t samples;
	uint64_t others;
};

struct session {
	struct record_options *opts;
	struct record_target target;
	struct cpu_list cpus;             /* online CPUs: one file and one side-band ring each */
	struct sampler_event *sampler_events;
	bool cgroup_field;                /* samples carry PERF_SAMPLE_CGROUP */
	int *slot_of_cpu; /* indexed by CPU number, -1 if not recorded */
	int nr_possible;
	int dirfd;
	struct record_writer writer;      /* staging rings and files, by slot */
	struct flight_recorder flight;    /* --overwrite: instead of the writer */
	struct byte_buffer synthesized;   /* side-band for what existed at the start */
	struct byte_buffer tracing;       /* HEADER_TRACING_DATA, read at the start */
	struct build_id_cache build_ids;  /* containers' binaries, kept in DIR/.build-id */
	struct staging_drops *drops;      /* by slot */
	uint64_t tracking_id;             /* the side-band event's id, for its LOST records */
	struct sideband sideband;
	struct bpf_sampler *sampler;
	struct snapshot_trigger *trigger; /* --trigger, --trigger-runqlat */
	struct record_metrics *metrics;   /* --metrics: what the drain sees... */
	struct exporter *runq;            /* ...the run-queue histogram... */
	struct metrics_server *server;    /* ...served here */
	struct metrics_program program_stats[16]; /* for the scrape being rendered */
	char trigger_reason[128];         /* a snapshot to ask for after the next drain */
	struct workload workload;
	bool has_workload;
	int sigfd;
	int epfd;
	bool stopping;
	char error[512];
};

/* The time of a record in ringtrace's layout: a sample's word 4, else its
 * sample_id trailer. */
static uint64_t record_time(const void *rec)
{
	const struct perf_event_header *h = rec;
	struct perf_sample_id sid;
	uint64_t t;

	if (h->type == PERF_RECORD_SAMPLE) {
		memcpy(&t, (const uint8_t *)rec + 4 * 8, sizeof(t));
		return t;
	}
	return perf_sample_id_decode(h, SAMPLE_ID_TYPE, &sid) ? 0 : sid.time;
}

/* Hands a record to its CPU's staging ring, as weight items of cls. */
static int stage(struct session *s, int cpu, const void *rec, size_t size,
		 enum staging_class cls, uint64_t weight)
{
	const struct perf_event_header *h = rec;
	int slot = cpu >= 0 && cpu < s->nr_possible ? s->slot_of_cpu[cpu] : -1;

	if (slot < 0) {
		rt_format(s->error, sizeof(s->error), "a record of CPU %d, which has no file", cpu);
		return -EINVAL;
	}
	if (!staging_ring_write(&s->writer.cpus[slot].staging, rec, size, record_time(rec), cls,
				weight)) {
		/* a dropped LOST record's count is not lost: the ring folds it
		 * into its own LOST record; only records themselves are drops */
		if (h->type == PERF_RECORD_SAMPLE)
			s->drops[slot].samples++;
		else if (h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES)
			s->drops[slot].others++;
	}
	return 0;
}

static uint64_t lost_count(const struct perf_event_header *h)
{
	struct perf_lost l;

	return perf_lost_decode(h, &l) ? 0 : l.lost;
}

/* --metrics: the sample's CPU time, to its thread's comm and its cgroup (the
 * last word: --metrics records PERF_SAMPLE_CGROUP). */
static void note_sample_metrics(struct session *s, const void *rec, size_t size)
{
	const uint64_t *w = rec;
	uint64_t cgroup = 0;

	if (size < RT_SAMPLE_FIXED_WORDS * 8)
		return;
	if (s->cgroup_field)
		memcpy(&cgroup, (const uint8_t *)rec + size - 8, sizeof(cgroup));
	record_metrics_sample(s->metrics, (uint32_t)(w[3] >> 32), cgroup, w[6]);
}

/* --metrics: the comm of each thread, from COMM records, and a new thread's
 * from its parent's (FORK records). */
static void note_comm_metrics(struct session *s, const void *rec)
{
	uint32_t type = ((const struct perf_event_header *)rec)->type;
	struct perf_comm c;
	struct perf_task t;

	if (!s->metrics)
		return;
	if (type == PERF_RECORD_COMM && !perf_comm_decode(rec, SAMPLE_ID_TYPE, &c))
		record_metrics_comm(s->metrics, c.tid, c.comm);
	else if (type == PERF_RECORD_FORK && !perf_task_decode(rec, &t))
		record_metrics_fork(s->metrics, t.ptid, t.tid);
}

/* A sample, or the BPF side's LOST_SAMPLES, from the transport. */
static int on_sample(void *ctx, int cpu, const void *rec, size_t size)
{
	const struct perf_event_header *h = rec;
	struct session *s = ctx;

	if (s->metrics && h->type == PERF_RECORD_SAMPLE)
		note_sample_metrics(s, rec, size);
	if (s->opts->overwrite) {
		if (h->type == PERF_RECORD_SAMPLE)
			return flight_recorder_sample(&s->flight, cpu, rec, size);
		flight_recorder_lost(&s->flight, cpu, lost_count(h), record_time(rec));
		return 0;
	}
	return stage(ctx, cpu, rec, size, STAGING_SAMPLES,
		     h->type == PERF_RECORD_SAMPLE ? 1 : lost_count(h));
}

/* The kernel's PERF_RECORD_LOST of a perf ring, replayed in our layout. */
static int on_kernel_lost(void *ctx, int cpu, uint64_t count, uint64_t time)
{
	struct session *s = ctx;
	uint8_t buf[STAGING_LOST_MAX];
	struct byte_buffer b = { buf, 0, sizeof(buf) };
	struct perf_lost l = { .id = s->sampler_events[0].id, .lost = count };
	struct perf_sample_id sid = { .time = time, .cpu = (uint32_t)cpu, .id = l.id };

	if (perf_lost_encode(&b, SAMPLE_ID_TYPE, PERF_RECORD_LOST, &l, &sid))
		return -ENOMEM;
	return stage(s, cpu, b.data, b.len, STAGING_SAMPLES, count);
}

/* A binary mapped by a process in another mount namespace (a container) is
 * copied into the recording, by build-id, while that process still lives.
 * Reading /proc/PID/root of a root process needs capabilities this process
 * dropped once attached: for containers started during the recording this
 * works with --keep-caps only (those running at the start are copied while
 * the side-band is synthesized, before the drop). */
static void keep_container_binary(struct session *s, const void *rec)
{
	struct perf_mmap m;

	if (((const struct perf_event_header *)rec)->type == PERF_RECORD_MMAP2 &&
	    !perf_mmap_decode(rec, SAMPLE_ID_TYPE, &m) && m.build_id_size &&
	    (m.prot & PROT_EXEC))
		build_id_cache_add(&s->build_ids, m.pid, m.filename, m.build_id, m.build_id_size);
}

/* Side-band records of the tracking event, the kernel's LOST among them. */
static int on_sideband(void *ctx, unsigned int slot, const void *rec, size_t size)
{
	struct session *s = ctx;
	const struct perf_event_header *h = rec;

	note_comm_metrics(s, rec);
	keep_container_binary(s, rec);
	if (s->opts->overwrite)
		return flight_recorder_sideband(&s->flight, s->cpus.cpus[slot], rec, size);
	return stage(s, s->cpus.cpus[slot], rec, size, STAGING_OTHER,
		     h->type == PERF_RECORD_LOST ? lost_count(h) : 1);
}

/* The staging ring's LOST records: LOST_SAMPLES for samples (attributed to
 * the first event), LOST for side-band records (the tracking event's). */
static size_t build_staging_lost(void *ctx, int cpu, enum staging_class cls, uint64_t count,
				 uint64_t time, void *buf, size_t cap)
{
	struct session *s = ctx;
	struct byte_buffer b = { buf, 0, cap };
	uint64_t id = cls == STAGING_SAMPLES ? s->sampler_events[0].id : s->tracking_id;
	struct perf_lost l = { .id = id, .lost = count };
	struct perf_sample_id sid = { .time = time, .cpu = (uint32_t)cpu, .id = id };

	if (perf_lost_encode(&b, SAMPLE_ID_TYPE,
			     cls == STAGING_SAMPLES ? PERF_RECORD_LOST_SAMPLES : PERF_RECORD_LOST, &l,
			     &sid))
		return 0;
	return b.len;
}

/* The attr perf reads for event i: what was opened, and the sample layout the
 * BPF program writes for it. */
static void event_file_attr(struct perf_event_attr *a, const struct session *s, unsigned int i)
{
	const struct record_options *o = s->opts;
	const struct event_desc *ev = &o->events[i];

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	if (ev->kind == EVENT_TRACEPOINT) {
		a->sample_period = s->sampler_events[i].tracepoint_period;
	} else if (o->rate.freq) {
		a->freq = 1;
		a->sample_freq = o->rate.freq;
	} else {
		a->sample_period = o->rate.period;
	}
	a->sample_type = SAMPLE_TYPE | (o->callchain ? PERF_SAMPLE_CALLCHAIN : 0) |
			 (ev->kind == EVENT_TRACEPOINT ? PERF_SAMPLE_RAW : 0) |
			 (s->cgroup_field ? PERF_SAMPLE_CGROUP : 0);
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel;
	a->use_clockid = 1;
	a->clockid = RINGTRACE_CLOCKID;
}

/* The side-band tracking event, as perf records it ("dummy:HG"). */
static void tracking_file_attr(struct perf_event_attr *a, const struct session *s)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	a->sample_type = SAMPLE_TYPE;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->use_clockid = 1;
	a->clockid = RINGTRACE_CLOCKID;
	a->comm = a->comm_exec = a->mmap = a->mmap2 = a->task = 1;
	a->build_id = 1;
	a->cgroup = s->cgroup_field;
}

/* Side-band for what exists before the recording: the kernel's mapping, every
 * process's comm and mappings, every cgroup if samples name theirs. */
static int synthesize_sideband(struct session *s, struct byte_buffer *side)
{
	struct perf_sample_id sid = { .id = s->tracking_id };

	if (synthesize_kernel_mmap(side, SAMPLE_ID_TYPE, &sid, s->error, sizeof(s->error)))
		rt_warn("%s; kernel frames will show as [unknown]", s->error);
	s->error[0] = '\0';
	if (synthesize_processes(side, SAMPLE_ID_TYPE, &sid, &s->build_ids) < 0 ||
	    (s->cgroup_field && synthesize_cgroups(side, SAMPLE_ID_TYPE, &sid) < 0)) {
		rt_format(s->error, sizeof(s->error), "out of memory listing processes");
		return -1;
	}
	return 0;
}

/* DIRPATH/data: the header, the attrs with their ids, the side-band
 * synthesized at the start, and the features (tracepoint formats among
 * them). Called by the snapshot thread too: it only reads the session. */
static int write_header_file(struct session *s, int dirfd, const char *dirpath, char *err,
			     size_t errlen)
{
	const struct record_options *o = s->opts;
	unsigned int nr = o->nr_events + 1;
	struct perf_data_event evs[EVENT_SPEC_MAX + 1];
	uint64_t *tracking_ids = calloc(s->sideband.nr, sizeof(uint64_t));
	struct perf_data_header h = { .events = evs, .nr_events = nr };
	struct timespec res = { 0 };
	struct utsname u;
	int fd, ret = -1;

	if (!tracking_ids) {
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < o->nr_events; i++) {
		memset(&evs[i], 0, sizeof(evs[i]));
		event_file_attr(&evs[i].attr, s, i);
		evs[i].name = o->events[i].name;
		evs[i].ids = &s->sampler_events[i].id;
		evs[i].nr_ids = 1;
	}
	for (unsigned int c = 0; c < s->sideband.nr; c++)
		tracking_ids[c] = s->sideband.cpus[c].id;
	memset(&evs[o->nr_events], 0, sizeof(evs[0]));
	tracking_file_attr(&evs[o->nr_events].attr, s);
	evs[o->nr_events].name = "dummy:HG";
	evs[o->nr_events].ids = tracking_ids;
	evs[o->nr_events].nr_ids = s->sideband.nr;

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
	for (unsigned int i = 0; i < o->nr_events; i++)
		if (o->events[i].kind == EVENT_TRACEPOINT) {
			h.tracing_data = s->tracing.data;
			h.tracing_data_size = s->tracing.len;
		}
	fd = output_file_create(dirfd, dirpath, "data", err, errlen);
	if (fd < 0)
		goto out;
	ret = perf_data_write_header(fd, &h, s->synthesized.data, s->synthesized.len, err, errlen);
	if (close(fd) && !ret) {
		rt_format(err, errlen, "cannot write %s/data: %s", dirpath, strerror(errno));
		ret = -1;
	}
out:
	free(tracking_ids);
	return ret;
}

static int setup_epoll(struct session *s)
{
	struct epoll_event ev = { .events = EPOLLIN };

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -1;
	ev.data.u64 = TAG_SIGNAL;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev))
		return -1;
	ev.data.u64 = TAG_SAMPLER;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, bpf_sampler_epoll_fd(s->sampler), &ev))
		return -1;
	if (s->trigger) {
		ev.data.u64 = TAG_TRIGGER;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, snapshot_trigger_epoll_fd(s->trigger), &ev))
			return -1;
	}
	ev.data.u64 = TAG_SIDEBAND;
	for (unsigned int i = 0; i < s->sideband.nr; i++)
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sideband.cpus[i].ring.fd, &ev))
			return -1;
	return 0;
}

/* Moves everything waiting in the kernel's rings into the staging rings and
 * wakes the writer. Never blocks on the disk. */
static int drain_all(struct session *s)
{
	long r;

	if (s->opts->debug_drain_delay_ms)
		usleep(s->opts->debug_drain_delay_ms * 1000);
	r = bpf_sampler_drain(s->sampler);
	if (r < 0) {
		if (!s->error[0])
			rt_format(s->error, sizeof(s->error), "cannot drain the %s: %s",
				  s->opts->transport == TRANSPORT_PERFBUF ? "perf rings" : "BPF rings",
				  strerror((int)-r));
		return -1;
	}
	for (unsigned int i = 0; i < s->sideband.nr; i++) {
		r = sideband_drain(&s->sideband, i, on_sideband, s);
		if (r < 0) {
			if (!s->error[0])
				rt_format(s->error, sizeof(s->error), "cannot drain the side-band ring of CPU %d: %s",
					  s->sideband.cpus[i].cpu, strerror((int)-r));
			return -1;
		}
	}
	record_writer_kick(&s->writer);
	return 0;
}

/* A snapshot is asked for once everything that happened before the
 * trigger was drained into the staging rings. */
static void note_trigger(struct session *s, const char *reason)
{
	if (!s->trigger_reason[0])
		snprintf(s->trigger_reason, sizeof(s->trigger_reason), "%s", reason);
}

/* The first SIGINT or SIGTERM stops the recording cleanly (drain, flush,
 * totals); from then on the default action is back, so a second one ends
 * the process at once: the files hold whole records up to the last write. */
static void request_stop(struct session *s)
{
	sigset_t again;

	if (s->stopping)
		return;
	s->stopping = true;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigemptyset(&again);
	sigaddset(&again, SIGINT);
	sigaddset(&again, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &again, NULL);
}

static void handle_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (s->has_workload && workload_poll(&s->workload))
				s->stopping = true;
		} else if (si.ssi_signo == SIGUSR2) {
			note_trigger(s, "SIGUSR2");
		} else {
			request_stop(s);
		}
	}
}

static int run_loop(struct session *s)
{
	while (!s->stopping) {
		struct epoll_event evs[16];
		int n = epoll_wait(s->epfd, evs, 16, DRAIN_INTERVAL_MS);

		if (n < 0 && errno != EINTR) {
			rt_format(s->error, sizeof(s->error), "epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n; i++)
			if (evs[i].data.u64 == TAG_SIGNAL)
				handle_signal(s);
			else if (evs[i].data.u64 == TAG_TRIGGER)
				snapshot_trigger_poll(s->trigger);
		if (drain_all(s))
			return -1;
		if (s->trigger_reason[0]) {
			flight_recorder_trigger(&s->flight, s->trigger_reason);
			s->trigger_reason[0] = '\0';
		}
		if (atomic_load(&s->writer.error)) {
			rt_format(s->error, sizeof(s->error), "cannot write %s/data.cpu%d: %s",
				  s->opts->output, s->writer.error_cpu,
				  strerror(atomic_load(&s->writer.error)));
			return -1;
		}
	}
	return 0;
}

/* Losses of cpu that no record reported (the BPF side's pending loss, or what
 * the kernel never got to write) become its last record: LOST_SAMPLES. */
static int stage_unreported_losses(struct session *s, int cpu)
{
	uint8_t buf[STAGING_LOST_MAX];
	uint64_t time, count = bpf_sampler_unreported_losses(s->sampler, cpu, &time);
	size_t n;

	if (!count)
		return 0;
	if (s->opts->overwrite) {
		/* perfbuf snapshots take the BPF side's losses as they are */
		if (s->opts->transport == TRANSPORT_RINGBUF)
			flight_recorder_lost(&s->flight, cpu, count, time);
		return 0;
	}
	n = build_staging_lost(s, cpu, STAGING_SAMPLES, count, time, buf, sizeof(buf));
	return n ? stage(s, cpu, buf, n, STAGING_SAMPLES, count) : -ENOMEM;
}

/* Per CPU: samples in the file, lost in the kernel's ring (BPF ring or perf
 * ring), lost in the staging ring; side-band records and their losses. */
static void print_summary(const struct session *s, double seconds)
{
	uint64_t t_samples = 0, t_kernel = 0, t_staging = 0, t_side = 0, t_side_lost = 0, bytes = 0;

	rt_info("%6s %12s %12s %12s %12s %10s", "cpu", "samples", "kernel-lost", "staging-lost",
		"side-band", "sb-lost");
	for (unsigned int i = 0; i < s->cpus.nr; i++) {
		const struct cpu_output *o = &s->writer.cpus[i];
		const struct sideband_cpu *sb = &s->sideband.cpus[i];
		struct rt_cpu_counters c = { 0 };
		uint64_t side_lost = sb->lost + s->drops[i].others;

		bpf_sampler_counters(s->sampler, o->cpu, &c);
		if (c.follow_failed)
			rt_warn("CPU %d: %llu forked processes were not followed: the target table was full",
				o->cpu, (unsigned long long)c.follow_failed);
		rt_info("%6d %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64,
			o->cpu, o->samples_written, (uint64_t)c.lost, s->drops[i].samples,
			sb->records, side_lost);
		t_samples += o->samples_written;
		t_kernel += c.lost;
		t_staging += s->drops[i].samples;
		t_side += sb->records;
		t_side_lost += side_lost;
		bytes += o->stream.bytes_written;
	}
	rt_info("%6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64, "all",
		t_samples, t_kernel, t_staging, t_side, t_side_lost);
	rt_info("ringtrace: recorded %.3f s into %s: %" PRIu64 " samples, %" PRIu64
		" lost, %.1f KiB",
		seconds, s->opts->output, t_samples, t_kernel + t_staging, (double)bytes / 1024.0);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Stops sampling, drains what is left, stages the losses nothing reported,
 * lets the writer finish, then prints the totals. */
static int finish(struct session *s, const struct timespec *t0)
{
	double seconds;
	int ret = 0, werr;

	snapshot_trigger_stop(s->trigger);
	s->trigger = NULL;
	bpf_sampler_stop(s->sampler);
	sideband_disable(&s->sideband);
	seconds = seconds_since(t0);
	if (drain_all(s))
		ret = -1;
	for (unsigned int i = 0; i < s->target.cpus.nr; i++)
		if (stage_unreported_losses(s, s->target.cpus.cpus[i]) && !s->error[0]) {
			rt_format(s->error, sizeof(s->error), "cannot report the losses of CPU %d",
				  s->target.cpus.cpus[i]);
			ret = -1;
		}
	if (s->opts->overwrite) {
		/* the last snapshot takes what the rings hold at the end */
		char err[512];

		if (flight_recorder_finish(&s->flight, err, sizeof(err))) {
			if (!s->error[0])
				rt_format(s->error, sizeof(s->error), "%s", err);
			ret = -1;
		}
		return s->error[0] ? -1 : ret;
	}
	werr = record_writer_finish(&s->writer);
	if (werr && !s->error[0])
		rt_format(s->error, sizeof(s->error), "cannot write %s/data.cpu%d: %s",
			  s->opts->output, s->writer.error_cpu, strerror(werr));
	if (s->error[0])
		ret = -1;
	print_summary(s, seconds);
	return ret;
}

/* The events as the BPF sampler takes them, with their ids. */
static int plan_sampler_events(struct session *s)
{
	const struct record_options *o = s->opts;

	s->sampler_events = calloc(o->nr_events, sizeof(*s->sampler_events));
	if (!s->sampler_events)
		return -1;
	for (unsigned int i = 0; i < o->nr_events; i++) {
		const struct event_desc *ev = &o->events[i];
		struct sampler_event *se = &s->sampler_events[i];

		se->type = ev->type;
		se->config = ev->config;
		se->exclude_user = ev->exclude_user;
		se->exclude_kernel = ev->exclude_kernel;
		se->rate = o->rate;
		se->id = EVENT_ID_BASE + i + 1;
		if (ev->kind == EVENT_TRACEPOINT) {
			se->format = &ev->format;
			se->syscall = !strcmp(ev->system, "syscalls");
			/* every hit, as perf records tracepoints, unless -c thins them */
			se->tracepoint_period = o->period_given ? o->rate.period : 1;
		}
	}
	return 0;
}

/* --trigger names a tracepoint that exists. */
static int check_trigger_event(const char *event, char *err, size_t errlen)
{
	struct tracepoint_format format;
	char system[128], *name;

	snprintf(system, sizeof(system), "%s", event);
	name = strchr(system, ':');
	if (!name || !name[1] || name == system) {
		rt_format(err, errlen, "invalid --trigger \"%s\": give a tracepoint as SYSTEM:NAME", event);
		return -1;
	}
	*name++ = '\0';
	if (tracefs_read_format(system, name, &format, err, errlen)) {
		size_t n = strlen(err);

		rt_format(err + n, errlen - n, " (for --trigger)");
		return -1;
	}
	return 0;
}

/* Everything that can be wrong with the request is found here, before any
 * file is created or anything attached. */
static int resolve_request(struct session *s)
{
	struct record_options *o = s->opts;

	for (unsigned int i = 0; i < o->nr_events; i++)
		if (event_resolve(&o->events[i], s->error, sizeof(s->error)))
			return -1;
	if (o->trigger_event && check_trigger_event(o->trigger_event, s->error, sizeof(s->error)))
		return -1;
	if (record_target_resolve(&s->target, o, s->error, sizeof(s->error)))
		return -1;
	s->cgroup_field = s->target.has_cgroup || o->all_cgroups;
	s->nr_possible = cpu_list_possible_count();
	if (s->nr_possible <= 0) {
		rt_format(s->error, sizeof(s->error), "cannot read /sys/devices/system/cpu/possible");
		return -1;
	}
	if (cpu_list_copy(&s->cpus, &s->target.online) || plan_sampler_events(s)) {
		rt_format(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	s->slot_of_cpu = malloc((size_t)s->nr_possible * sizeof(int));
	s->drops = calloc(s->cpus.nr, sizeof(*s->drops));
	if (!s->slot_of_cpu || !s->drops)
		return -1;
	for (int c = 0; c < s->nr_possible; c++)
		s->slot_of_cpu[c] = -1;
	for (unsigned int i = 0; i < s->cpus.nr; i++)
		s->slot_of_cpu[s->cpus.cpus[i]] = (int)i;
	return 0;
}

static int start_sampler(struct session *s)
{
	const struct record_options *o = s->opts;
	const struct record_target *t = &s->target;
	struct bpf_sampler_config cfg = {
		.transport = o->transport,
		.online = &t->online,
		.events = s->sampler_events,
		.nr_events = o->nr_events,
		.scope = {
			.cpus = &t->cpus,
			.only_these_cpus = t->only_these_cpus,
			.threads = t->threads,
			.nr_threads = t->nr_threads,
			.tgids = t->tgids,
			.nr_tgids = t->nr_tgids,
			.follow_forks = t->follow_forks,
			.tids = t->tids,
			.nr_tids = t->nr_tids,
			.cgroup_fd = t->has_cgroup ? t->cgroup.fd : -1,
			.cgroup_id = t->cgroup.id,
			.cgroup_exact = o->cgroup_exact,
		},
		.callchain = o->callchain,
		.cgroup_field = s->cgroup_field,
		.ring_bytes = o->ring_pages * (size_t)sysconf(_SC_PAGESIZE),
		.overwrite = o->overwrite,
	};

	struct transport_sink sink = { on_sample, on_kernel_lost, s };

	cfg.wakeup_bytes = cfg.ring_bytes / 4;
	s->sampler = bpf_sampler_start(&cfg, &sink, s->error, sizeof(s->error));
	return s->sampler ? 0 : -1;
}

static int flight_write_header(void *ctx, int dirfd, const char *dirpath, char *err,
			       size_t errlen)
{
	return write_header_file(ctx, dirfd, dirpath, err, errlen);
}

static size_t flight_build_lost(void *ctx, int cpu, uint64_t count, uint64_t time, void *buf,
				size_t cap)
{
	return build_staging_lost(ctx, cpu, STAGING_SAMPLES, count, time, buf, cap);
}

static int flight_bpf_counts(void *ctx, int cpu, uint64_t *produced, uint64_t *lost)
{
	struct session *s = ctx;
	struct rt_cpu_counters c;

	if (bpf_sampler_counters(s->sampler, cpu, &c))
		return -1;
	*produced = c.produced;
	*lost = c.lost;
	return 0;
}

static long flight_read_kernel_ring(void *ctx, int cpu,
				    int (*sample)(void *fctx, int cpu, const void *rec, size_t size),
				    void *fctx)
{
	struct session *s = ctx;
	struct transport_sink sink = { sample, NULL, fctx };

	return bpf_sampler_snapshot(s->sampler, cpu, &sink);
}

/* --overwrite: the newest samples stay in memory until a snapshot. */
static int start_flight_recorder(struct session *s)
{
	const struct record_options *o = s->opts;
	struct flight_recorder_config cfg = {
		.cpus = &s->cpus,
		.nr_possible = s->nr_possible,
		.staging_bytes = o->staging_bytes,
		.kernel_rings = o->transport == TRANSPORT_PERFBUF,
		.dirfd = s->dirfd,
		.dirpath = o->output,
		.max_snapshots = o->max_snapshots,
		.ops = {
			.write_header = flight_write_header,
			.build_lost = flight_build_lost,
			.record_time = record_time,
			.bpf_counts = flight_bpf_counts,
			.read_kernel_ring = o->transport == TRANSPORT_PERFBUF ? flight_read_kernel_ring
									      : NULL,
			.ctx = s,
		},
	};

	return flight_recorder_init(&s->flight, &cfg, s->error, sizeof(s->error));
}

static size_t metrics_cpu_counts(void *ctx, struct metrics_cpu_counts *out, size_t max)
{
	struct session *s = ctx;
	size_t n = 0;

	for (unsigned int i = 0; i < s->cpus.nr && n < max; i++) {
		struct rt_cpu_counters c = { 0 };

		bpf_sampler_counters(s->sampler, s->cpus.cpus[i], &c);
		out[n].cpu = s->cpus.cpus[i];
		out[n].produced = c.produced;
		out[n].lost = c.lost + s->drops[i].samples;
		out[n].overwritten = s->opts->overwrite ? s->flight.cpus[i].totals[2] +
								  s->flight.cpus[i].staging.overwritten
							: 0;
		n++;
	}
	return n;
}

static size_t metrics_rings(void *ctx, struct metrics_ring *out, size_t max)
{
	struct session *s = ctx;
	size_t n = 0;

	for (unsigned int i = 0; i < s->cpus.nr && n < max; i++) {
		struct staging_ring *r = s->opts->overwrite ? &s->flight.cpus[i].staging
							    : &s->writer.cpus[i].staging;

		if (!r->data)
			continue;
		out[n++] = (struct metrics_ring){ s->cpus.cpus[i], "staging", staging_ring_used(r),
						  r->size };
	}
	for (unsigned int i = 0; n < max; i++) {
		int cpu;
		uint64_t used, cap;

		if (bpf_sampler_ring_usage(s->sampler, i, &cpu, &used, &cap))
			break;
		/* cpu -1: the one ring of --per-thread */
		out[n++] = (struct metrics_ring){ cpu,
						  s->opts->transport == TRANSPORT_PERFBUF ? "perf" : "bpf",
						  used, cap };
	}
	return n;
}

static void metrics_extra(void *ctx, struct metrics_snapshot *m)
{
	struct session *s = ctx;

	if (s->runq)
		exporter_read_runq(s->runq, m);
	m->bpf_stats = bpf_stats_enabled();
	if (m->bpf_stats) {
		size_t n = bpf_sampler_program_stats(s->sampler, s->program_stats,
						     sizeof(s->program_stats) / sizeof(s->program_stats[0]));

		if (s->runq)
			n += exporter_program_stats(s->runq, s->program_stats + n,
						    sizeof(s->program_stats) / sizeof(s->program_stats[0]) - n);
		m->programs = s->program_stats;
		m->nr_programs = n;
	}
}

/* --metrics: the run-queue histogram's BPF programs, the aggregation of what
 * the drain sees, the HTTP server. */
static int start_metrics(struct session *s)
{
	struct exporter_config runq = { .runq_only = true };
	struct record_metrics_source src = {
		metrics_cpu_counts, metrics_rings, metrics_extra,
		s->opts->transport == TRANSPORT_PERFBUF ? "perfbuf" : "ringbuf", s,
	};
	const uint8_t *p;

	if (!s->opts->metrics_listen)
		return 0;
	s->runq = exporter_start(&runq, s->error, sizeof(s->error));
	s->metrics = s->runq ? record_metrics_create(20, &src) : NULL;
	if (!s->metrics) {
		if (!s->error[0])
			rt_format(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	/* the comms of what existed at the start */
	for (p = s->synthesized.data; p && p + sizeof(struct perf_event_header) <= s->synthesized.data + s->synthesized.len;
	     p += ((const struct perf_event_header *)p)->size) {
		if (!((const struct perf_event_header *)p)->size)
			break;
		note_comm_metrics(s, p);
	}
	return 0;
}

static void on_trigger_fired(void *ctx, const char *reason)
{
	note_trigger(ctx, reason);
}

/* The in-kernel snapshot triggers, once the sampler runs. */
static int start_triggers(struct session *s)
{
	const struct record_options *o = s->opts;
	struct snapshot_trigger_config cfg = {
		.event = o->trigger_event,
		.runqlat_ns = o->trigger_runqlat_ns,
		.fired = on_trigger_fired,
		.ctx = s,
	};

	if (!o->trigger_event && !o->trigger_runqlat_ns)
		return 0;
	s->trigger = snapshot_trigger_start(&cfg, s->error, sizeof(s->error));
	return s->trigger ? 0 : -1;
}

/* DIR/ringtrace.pid: where "ringtrace snapshot DIR" finds the recording. */
static int write_pid_file(struct session *s)
{
	char text[32];
	int fd = output_file_create(s->dirfd, s->opts->output, PID_FILE, s->error,
				    sizeof(s->error));
	int len = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	bool ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, (size_t)len) == len;
	if (close(fd) || !ok) {
		rt_format(s->error, sizeof(s->error), "cannot write %s/%s", s->opts->output, PID_FILE);
		return -1;
	}
	return 0;
}

static int start_session(struct session *s, sigset_t *orig_mask)
{
	const struct record_options *o = s->opts;

	/* the workload is forked first, before the large buffers exist, so
	 * the drain never takes copy-on-write faults on pages it shares */
	if (o->workload_argv) {
		if (workload_prepare(&s->workload, o->workload_argv, orig_mask, s->error,
				     sizeof(s->error)))
			return -1;
		s->has_workload = true;
		if (record_target_add_workload(&s->target, s->workload.pid)) {
			rt_format(s->error, sizeof(s->error), "out of memory");
			return -1;
		}
	}
	s->dirfd = output_dir_create(o->output, o->force, s->error, sizeof(s->error));
	if (s->dirfd < 0)
		return -1;
	build_id_cache_init(&s->build_ids, s->dirfd);
	if (o->overwrite ? start_flight_recorder(s)
			 : record_writer_init(&s->writer, &s->cpus, s->dirfd, o->output,
					      o->staging_bytes, build_staging_lost, s, s->error,
					      sizeof(s->error)))
		return -1;
	s->writer.delay_ms = o->debug_writer_delay_ms;
	if (sideband_open(&s->sideband, &s->cpus, SAMPLE_ID_TYPE, o->sideband_pages,
			  s->cgroup_field, s->error, sizeof(s->error)) ||
	    sideband_enable(&s->sideband)) {
		if (!s->error[0])
			rt_format(s->error, sizeof(s->error), "cannot enable task tracking: %s",
				  strerror(errno));
		return -1;
	}
	s->tracking_id = s->sideband.cpus[0].id;
	if (synthesize_sideband(s, &s->synthesized))
		return -1;
	/* tracepoint formats, for perf script: tracefs is read only if needed */
	for (unsigned int i = 0; i < o->nr_events; i++)
		if (o->events[i].kind == EVENT_TRACEPOINT) {
			if (tracing_data_build(&s->tracing, o->events, o->nr_events, s->error,
					       sizeof(s->error)))
				return -1;
			break;
		}
	/* the flight recorder writes headers into its snapshots only */
	if (!o->overwrite &&
	    write_header_file(s, s->dirfd, o->output, s->error, sizeof(s->error)))
		return -1;
	if (start_sampler(s) || start_triggers(s) || setup_epoll(s) || start_metrics(s))
		return -1;
	if (o->overwrite && write_pid_file(s))
		return -1;
	return 0;
}

/* After the capabilities are dropped: the threads (which inherit the caller's
 * capabilities when created), then the workload. */
static int start_threads(struct session *s)
{
	const struct record_options *o = s->opts;

	if (o->overwrite ? flight_recorder_start(&s->flight, s->error, sizeof(s->error))
			 : record_writer_start(&s->writer, s->error, sizeof(s->error)))
		return -1;
	if (s->metrics) {
		s->server = metrics_server_start(o->metrics_listen, record_metrics_render, s->metrics,
						 s->error, sizeof(s->error));
		if (!s->server)
			return -1;
		rt_info("ringtrace: serving metrics on http://%s/metrics", o->metrics_listen);
	}
	if (s->has_workload &&
	    workload_start(&s->workload, o->workload_argv, s->error, sizeof(s->error)))
		return -1;
	return 0;
}

static void end_session(struct session *s)
{
	if (s->has_workload)
		workload_stop(&s->workload);
	snapshot_trigger_stop(s->trigger);
	metrics_server_stop(s->server);
	record_metrics_free(s->metrics);
	exporter_stop(s->runq);
	record_writer_free(&s->writer);
	flight_recorder_free(&s->flight);
	byte_buffer_free(&s->synthesized);
	byte_buffer_free(&s->tracing);
	if (s->dirfd >= 0)
		build_id_cache_free(&s->build_ids);
	if (s->opts->overwrite && s->dirfd >= 0)
		unlinkat(s->dirfd, PID_FILE, 0);
	bpf_sampler_close(s->sampler);
	sideband_close(&s->sideband);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->drops);
	free(s->slot_of_cpu);
	free(s->sampler_events);
	cpu_list_free(&s->cpus);
	record_target_free(&s->target);
}

int record_run(struct record_options *opts)
{
	struct session s = { .opts = opts, .dirfd = -1, .sigfd = -1, .epfd = -1,
			     .target.cgroup.fd = -1 };
	sigset_t mask, orig_mask;
	struct timespec t0;
	bool failed;
	int status = 1;

	bpf_sampler_set_verbose(opts->verbose);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	if (opts->overwrite)
		sigaddset(&mask, SIGUSR2);
	sigprocmask(SIG_BLOCK, &mask, &orig_mask);
	s.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s.sigfd < 0) {
		rt_error("signalfd: %s", strerror(errno));
		goto out;
	}
	if (resolve_request(&s)) {
		rt_error("%s", s.error[0] ? s.error : "out of memory");
		status = 2;
		goto out;
	}
	if (privileges_check("record", s.error, sizeof(s.error))) {
		rt_error("%s", s.error);
		goto out;
	}
	/* everything loaded, attached and opened: no capability is needed
	 * any more, and none is kept for the threads started after */
	if (start_session(&s, &orig_mask) ||
	    (!opts->keep_caps && privileges_drop_all(s.error, sizeof(s.error))) ||
	    start_threads(&s)) {
		rt_error("%s", s.error[0] ? s.error : "cannot start recording");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	failed = run_loop(&s) != 0;
	/* even after a failure, stop cleanly and keep what was recorded */
	failed |= finish(&s, &t0) != 0;
	if (failed) {
		rt_error("%s", s.error);
		goto out;
	}
	status = 0;
	if (s.has_workload) {
		workload_poll(&s.workload);
		status = workload_exit_code(&s.workload);
	}
out:
	end_session(&s);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	return status;
}
