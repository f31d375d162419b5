/* SPDX-License-Identifier: GPL-2.0-only */
/* summary.c: a recording's totals as it ends: per CPU and in all, on stderr
 * and in DIR/totals, whose absence tells report that it never ended. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture/bpf_stats.h"
#include "lib/log.h"
#include "record/jit_maps.h"
#include "record/session.h"
#include "sys/output_dir.h"

bool session_sink_totals(const struct session *s, int cpu, struct record_sink_totals *t)
{
	struct record_sink *p = s->nr_sinks ? s->sinks[0] : NULL;

	memset(t, 0, sizeof(*t));
	return p && p->ops->totals && p->ops->totals(p, cpu, t);
}

/* Events the kernel never ran the sampler for: no sample was produced, so
 * no count of the BPF side has them; they are said apart. */
static void print_missed_runs(const struct session *s)
{
	uint64_t missed = bpf_sampler_missed_runs(s->sampler);

	if (missed)
		rt_warn("the kernel skipped the sampler %" PRIu64 " times: its event fired while another BPF program ran on that CPU",
			missed);
}

static bool has_filters(const struct session *s)
{
	for (unsigned int i = 0; i < s->opts->nr_events; i++)
		if (s->opts->events[i].filter)
			return true;
	return false;
}

/* A line of the totals: in the totals file if open, and on stderr if shown. */
static void totals_line(FILE *file, bool shown, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void totals_line(FILE *file, bool shown, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (shown)
		rt_info("%s", line);
	if (file)
		fprintf(file, "%s\n", line);
}

/* DIR/totals, new (0600, not through a symlink), or NULL: the recording's
 * totals are then on stderr alone, and report says they are missing. */
static FILE *open_totals(const struct session *s)
{
	char err[512];
	int fd = s->out.fd >= 0 ? output_file_create(s->out.fd, s->opts->output, OUTPUT_TOTALS_FILE,
						     err, sizeof(err))
				: -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fd < 0 && s->out.fd >= 0)
		rt_warn("%s", err);
	if (!f && fd >= 0)
		close(fd);
	return f;
}

/* The bytes copies (NULL: none) holds. */
static uint64_t copied_bytes(struct file_copies *copies)
{
	struct file_copies_totals t;

	if (!copies)
		return 0;
	file_copies_get_totals(copies, &t);
	return t.bytes;
}

/* Per CPU: samples in the file; lost in the kernel's ring (BPF ring or perf
 * ring), in the staging ring, on the way to the disk (a failed write);
 * side-band records and their losses. All of it goes into DIR/totals; on
 * stderr, the per-CPU table with -v, then one line (none with -q), and a
 * second that says where the losses were when there were any. */
void session_print_summary(const struct session *s)
{
	uint64_t t_samples = 0, t_kernel = 0, t_staging = 0, t_write = 0, t_side = 0,
		 t_side_lost = 0, t_lost, bytes = 0, t_filtered = 0,
		 t_overrun = 0;
	/* each output of --switch-output has its own */
	FILE *file = s->rotation.on ? NULL : open_totals(s);
	bool table = s->opts->verbose;
	char into[3 * PATH_MAX + 64];

	totals_line(file, table, "%6s %12s %12s %12s %12s %12s %10s", "cpu", "samples", "kernel-lost",
		    "staging-lost", "write-lost", "side-band", "sb-lost");
	for (unsigned int i = 0; i < s->cpus.nr; i++) {
		int cpu = s->cpus.cpus[i];
		const struct sideband_cpu *sb = &s->sideband.cpus[i];
		struct rt_cpu_counters c = { 0 };
		struct record_sink_totals t;
		uint64_t side_lost;

		session_sink_totals(s, cpu, &t);
		side_lost = sb->lost + t.sideband;
		bpf_sampler_counters(s->sampler, cpu, &c);
		if (c.follow_failed)
			rt_warn("CPU %d: %llu forked processes were not followed: the target table was full",
				cpu, (unsigned long long)c.follow_failed);
		totals_line(file, table, "%6d %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			    " %12" PRIu64 " %10" PRIu64, cpu, t.samples, (uint64_t)c.lost, t.lost,
			    t.unwritten, sb->records, side_lost);
		t_filtered += c.filtered;
		t_overrun += c.filter_overrun;
		t_samples += t.samples;
		t_kernel += c.lost;
		t_staging += t.lost;
		t_write += t.unwritten;
		t_side += sb->records;
		t_side_lost += side_lost;
		bytes += t.bytes;
	}
	totals_line(file, table, "%6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
		    " %12" PRIu64 " %10" PRIu64, "all", t_samples, t_kernel, t_staging, t_write,
		    t_side, t_side_lost);
	t_lost = t_kernel + t_staging + t_write;
	/* and the copies of the files its samples need, kept beside them */
	bytes += copied_bytes(s->copies) + copied_bytes(s->unlinked_copies);
	/* the time the recording ran, from its start to its stop, whether it
	 * caught anything or not (report prints the span of the samples,
	 * perf's "sample duration"); with --switch-output, into the outputs
	 * (DIR itself is none of them) */
	if (s->rotation.on && s->rotation.outputs > 1)
		snprintf(into, sizeof(into), "%u outputs, %s%s to %s%s", s->rotation.outputs,
			 s->rotation.prefix, s->rotation.first_done, s->rotation.prefix,
			 s->rotation.last_done);
	else if (s->rotation.on && s->rotation.outputs)
		snprintf(into, sizeof(into), "%s%s", s->rotation.prefix, s->rotation.last_done);
	else
		snprintf(into, sizeof(into), "%s", s->opts->output);
	totals_line(file, !s->opts->quiet || t_lost || t_side_lost,
		    "ringtrace: recorded %.3f s into %s: %" PRIu64 " samples, %" PRIu64
		    " lost, %.1f KiB",
		    s->sampling_until > s->sampling_from ? s->sampling_until - s->sampling_from : 0.0,
		    into, t_samples,
		    t_lost, (double)bytes / 1024.0);
	if (t_lost || t_side_lost)
		totals_line(file, true,
			    "ringtrace: lost %" PRIu64 " samples in the kernel's rings (a bigger -m), %" PRIu64
			    " in the staging ring, %" PRIu64 " writing to disk; %" PRIu64
			    " side-band records (per CPU: -v)",
			    t_kernel, t_staging, t_write, t_side_lost);
	if (s->rotation.names_taken)
		totals_line(file, true,
			    "ringtrace: output names taken by entries not this recording's, passed "
			    "over: %" PRIu64 "; outputs named otherwise: %u (each output's totals)",
			    s->rotation.names_taken, s->rotation.renamed);
	if (has_filters(s))
		totals_line(file, !s->opts->quiet || t_overrun,
			    "ringtrace: --filter left out %" PRIu64 " tracepoint hits%s", t_filtered,
			    t_overrun ? "" : " (evaluated in the kernel, before the rings)");
	if (t_overrun)
		totals_line(file, true,
			    "ringtrace: %" PRIu64 " hits were kept unfiltered: their filter ran out of steps (globs over long strings)",
			    t_overrun);
	if (file && fclose(file))
		rt_warn("cannot write %s/%s", s->opts->output, OUTPUT_TOTALS_FILE);
	print_missed_runs(s);
	/* the kernel's count of our programs' runs: -v's, whoever turned the
	 * statistics on (another tool may have) */
	if (s->opts->verbose && bpf_stats_enabled()) {
		struct bpf_program_runs runs[16];

		bpf_stats_print(runs, bpf_sampler_program_stats(s->sampler, runs, 16));
	}
}

/* bytes as "12.0 KiB", "3.5 MiB", "1.0 GiB" into buf. */
static const char *human_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	unsigned int u = 0;

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/* The mapped files held, and what came of those deleted or replaced: with
 * -v once one was copied, always when one was not or was removed again. */
static void print_unlinked(const struct session *s)
{
	struct unlinked_copies_totals u;
	char removed[32], budget[32];

	unlinked_copies_get_totals(&s->build_ids.unlinked, &u);
	if (s->mapped.forgotten && s->opts->verbose)
		rt_info("ringtrace: build-ids of mapped files: %zu remembered, every one forgotten %" PRIu64
			" times (over %d: read again when mapped again)",
			s->mapped.by_file.len, s->mapped.forgotten, MAPPED_BUILD_IDS_MAX);
	if (!u.not_trusted && !u.too_large && !u.removed &&
	    !((u.copied || u.not_met) && s->opts->verbose))
		return;
	rt_info("ringtrace: mapped files held open until unlinked (%u at once): %" PRIu64
		", %" PRIu64 " copied once deleted or replaced (their names kept), %" PRIu64
		" let go still linked (room for newer ones); not copied: %" PRIu64
		" a user's (frames named [unknown]), %" PRIu64 " over %u MiB (or the budget), %" PRIu64
		" met by no sample (--unwind-tables sampled; over %u MiB: %" PRIu64
		" held once one met them, %" PRIu64 " never held); %" PRIu64
		" removed again (%s, the oldest: room for newer ones within %s)",
		s->build_ids.unlinked.max_held, u.held, u.copied, u.let_go, u.not_trusted,
		u.too_large, (unsigned int)(UNLINKED_MAX_FILE >> 20), u.not_met,
		(unsigned int)(UNLINKED_HOLD_UNMET_BYTES >> 20), u.held_late, u.never_held, u.removed,
		human_bytes(u.removed_bytes, removed, sizeof(removed)),
		s->build_ids.unlinked.kept_budget
			? human_bytes(s->build_ids.unlinked.kept_budget, budget, sizeof(budget))
			: "the copy budget");
	if (s->unlinked_copies) {
		struct file_copies_totals t;

		file_copies_get_totals(s->unlinked_copies, &t);
		if (t.over_budget || t.failed || s->opts->verbose)
			rt_info("ringtrace: deleted binaries' copies: %" PRIu64 " made, %s kept, %" PRIu64
				" refused over their budget, %" PRIu64 " failed",
				t.copied, human_bytes(t.bytes, removed, sizeof(removed)), t.over_budget,
				t.failed);
	}
}

/* The containers' binaries held for a sample to touch (-v, or a bound passed). */
static void print_held(const struct session *s)
{
	struct held_copies_totals h;
	char bytes[32];

	if (!s->build_ids.held)
		return;
	held_copies_get_totals(s->build_ids.held, &h);
	if (h.held + h.at_once && (s->opts->verbose || h.at_once))
		rt_info("ringtrace: containers' binaries the recorded processes mapped: %" PRIu64
			" copied as a sample touched them, %" PRIu64 " not (%s: no sample touched them), %" PRIu64
			" copied as they came (past %u files held, or an eighth of RLIMIT_NOFILE, or %u pages)",
			h.touched, h.untouched, human_bytes(h.untouched_bytes, bytes, sizeof(bytes)),
			h.at_once, HELD_FILES_MAX, HELD_PAGES_MAX);
}

void session_print_copies(const struct session *s)
{
	struct file_copies_totals t;
	char data[32], budget[32], refused[32];

	if (!s->copies)
		return;
	print_unlinked(s);
	print_held(s);
	file_copies_get_totals(s->copies, &t);
	if (!t.over_budget && !t.too_large && !t.failed && !(t.copied && s->opts->verbose))
		return;
	rt_info("ringtrace: files kept in %s (containers' binaries, deleted binaries, JITs' maps): %" PRIu64
		", %s of data of the %s budget (--copy-budget); %" PRIu64
		" refused over it (%s), %" PRIu64 " too large (a JIT's map over %u MiB), %" PRIu64
		" failed (not a regular file: a FIFO, a symlink; not its owner's; a failed write)",
		s->opts->output, t.copied, human_bytes(t.bytes, data, sizeof(data)),
		human_bytes(t.budget, budget, sizeof(budget)), t.over_budget,
		human_bytes(t.refused_bytes, refused, sizeof(refused)), t.too_large,
		JIT_MAP_MAX_BYTES >> 20, t.failed);
}
