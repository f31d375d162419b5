/* SPDX-License-Identifier: GPL-2.0-only */
/* metrics.c: renders ringtrace's metrics in the Prometheus text exposition
 * format 0.0.4: one HELP/TYPE per family, families whole, label values escaped
 * and made valid UTF-8 with no control byte, equal series merged, a final
 * newline. */
#include "export/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/metrics_agent.h"
#include "export/metrics_text.h"
#include "lib/terminal_text.h"
#include "sys/container_labels.h"

int metrics_escape_label(struct byte_buffer *out, const char *value, size_t len)
{
	size_t start = out->len, end, extra = 0;

	/* the text a terminal is shown of it (report's and script's): valid
	 * UTF-8, control bytes as C escapes ("\x1b"), so no newline is left... */
	if (!terminal_text_utf8(out, value, len))
		return -ENOMEM;
	/* ...then the exposition format's escapes of that text, in place from
	 * its end: a backslash (an escape's too) and a double quote each get a
	 * backslash before them ("\\x1b", which a parser reads as "\x1b") */
	end = out->len;
	for (size_t i = start; i < end; i++)
		extra += out->data[i] == '\\' || out->data[i] == '"';
	if (!extra)
		return 0;
	if (!byte_buffer_append(out, NULL, extra))
		return -ENOMEM;
	for (size_t from = end, to = out->len; from > start;) {
		uint8_t c = out->data[--from];

		out->data[--to] = c;
		if (c == '\\' || c == '"')
			out->data[--to] = '\\';
	}
	return 0;
}

/* A row with its label as it will be printed, to merge rows that print the
 * same (two comms that differ only in invalid bytes, a comm named "other"). */
struct printed_row {
	char *label; /* escaped */
	uint64_t samples, ns;
};

static int compare_printed(const void *a, const void *b)
{
	return strcmp(((const struct printed_row *)a)->label, ((const struct printed_row *)b)->label);
}

static void free_rows(struct printed_row *rows, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(rows[i].label);
	free(rows);
}

/* Sorts rows by label and merges those that print the same. */
static void sort_and_merge(struct printed_row *rows, size_t *nr)
{
	size_t out = 0;

	qsort(rows, *nr, sizeof(*rows), compare_printed);
	for (size_t i = 0; i < *nr; i++) {
		if (out && !strcmp(rows[out - 1].label, rows[i].label)) {
			rows[out - 1].samples += rows[i].samples;
			rows[out - 1].ns += rows[i].ns;
			free(rows[i].label);
			continue;
		}
		rows[out++] = rows[i];
	}
	*nr = out;
}

static int compare_ns_desc(const void *a, const void *b)
{
	const struct printed_row *x = a, *y = b;

	return x->ns == y->ns ? strcmp(x->label, y->label) : x->ns > y->ns ? -1 : 1;
}

/* Keeps the top rows by CPU time and sums the rest as "other" (which a row
 * already named so merges with). -ENOMEM if memory ran out. */
static int keep_top(struct printed_row *rows, size_t *nr, size_t top)
{
	struct printed_row other = { NULL, 0, 0 };

	if (!top || *nr <= top)
		return 0;
	other.label = strdup("other");
	if (!other.label)
		return -ENOMEM;
	qsort(rows, *nr, sizeof(*rows), compare_ns_desc);
	for (size_t i = top; i < *nr; i++) {
		other.samples += rows[i].samples;
		other.ns += rows[i].ns;
		free(rows[i].label);
	}
	rows[top] = other;
	*nr = top + 1;
	sort_and_merge(rows, nr);
	return 0;
}

/* Escapes, sorts and merges rows; *nr becomes the merged count; room is left
 * for one row more. */
static struct printed_row *merge_rows(const struct metrics_cpu_row *in, size_t *nr)
{
	/* one more: room for the row of evicted time */
	struct printed_row *rows = calloc(*nr + 1, sizeof(*rows));
	struct byte_buffer b = { 0 };

	if (!rows)
		return NULL;
	/* escaped in one buffer, each copied at its size: thousands of comms
	 * are thousands of small strings, not of buffers */
	for (size_t i = 0; i < *nr; i++) {
		b.len = 0;
		if (metrics_escape_label(&b, in[i].label, strlen(in[i].label)) ||
		    !byte_buffer_append(&b, "", 1) || !(rows[i].label = strdup((char *)b.data))) {
			byte_buffer_free(&b);
			free_rows(rows, i);
			return NULL;
		}
		rows[i].samples = in[i].samples;
		rows[i].ns = in[i].ns;
	}
	byte_buffer_free(&b);
	sort_and_merge(rows, nr);
	return rows;
}

/* NAME{KEY="VALUE" with VALUE escaped already, of any length (appended, never
 * formatted into put's line): a series' first label, more may follow. */
static int series_start(struct byte_buffer *out, const char *name, const char *key,
			const char *value)
{
	return byte_buffer_append(out, name, strlen(name)) && byte_buffer_append(out, "{", 1) &&
			       byte_buffer_append(out, key, strlen(key)) &&
			       byte_buffer_append(out, "=\"", 2) &&
			       byte_buffer_append(out, value, strlen(value)) &&
			       byte_buffer_append(out, "\"", 1)
		       ? 0
		       : -1;
}

/* NAME{KEY="VALUE"} with VALUE escaped already, of any length. */
static int series(struct byte_buffer *out, const char *name, const char *key, const char *value)
{
	return series_start(out, name, key, value) || !byte_buffer_append(out, "} ", 2) ? -1 : 0;
}

/* A cgroup row's series: its path, what the path says of the container in
 * it, and the names its runtime gives it (as report --pprof labels its
 * samples; the names checked to be Kubernetes names, no escape needed). */
static int cgroup_series(struct byte_buffer *out, const char *name, const char *path,
			 const struct metrics_snapshot *m)
{
	struct container_labels c;
	struct kube_names n;
	bool named;
	int r;

	if (!container_labels_of(path, &c))
		return series(out, name, "cgroup", path);
	named = container_names_of_cgroup(m->names, path, m->names_budget_ns, &n);
	r = series_start(out, name, "cgroup", path);
	if (c.container_id[0])
		r |= metrics_put(out, ",container_id=\"%s\"", c.container_id);
	if (c.pod_uid[0] || (named && n.pod_uid[0]))
		r |= metrics_put(out, ",pod_uid=\"%s\"", c.pod_uid[0] ? c.pod_uid : n.pod_uid);
	if (named && n.namespace_[0])
		r |= metrics_put(out, ",namespace=\"%s\"", n.namespace_);
	if (named && n.pod[0])
		r |= metrics_put(out, ",pod=\"%s\"", n.pod);
	if (named && n.container[0])
		r |= metrics_put(out, ",container=\"%s\"", n.container);
	if (c.qos_class)
		r |= metrics_put(out, ",qos_class=\"%s\"", c.qos_class);
	if (c.runtime)
		r |= metrics_put(out, ",container_runtime=\"%s\"", c.runtime);
	return r | metrics_put(out, "} ");
}

/* Adds evicted time (if any) to the "other" row, which it creates if need be;
 * rows has room for one row more. -ENOMEM if memory ran out. */
static int add_evicted(struct printed_row *rows, size_t *nr, const struct metrics_cpu_row *evicted)
{
	if (!evicted->samples && !evicted->ns)
		return 0;
	rows[*nr].label = strdup("other");
	if (!rows[*nr].label)
		return -ENOMEM;
	rows[*nr].samples = evicted->samples;
	rows[*nr].ns = evicted->ns;
	(*nr)++;
	sort_and_merge(rows, nr);
	return 0;
}

static int render_cpu_rows(struct byte_buffer *out, const struct metrics_snapshot *m,
			   const struct metrics_cpu_row *in, size_t nr,
			   size_t top, const struct metrics_cpu_row *evicted, const char *label,
			   const char *samples_name, const char *seconds_name, const char *what)
{
	struct printed_row *rows = merge_rows(in, &nr);
	char help[256];
	int r = 0;

	if (!rows)
		return -1;
	if (keep_top(rows, &nr, top) || add_evicted(rows, &nr, evicted)) {
		free_rows(rows, nr);
		return -1;
	}
	if (samples_name) {
		snprintf(help, sizeof(help), "On-CPU samples of tasks, by %s.", what);
		r |= metrics_family(out, samples_name, "counter", help);
		for (size_t i = 0; i < nr && !r; i++) {
			r |= strcmp(label, "cgroup") ? series(out, samples_name, label, rows[i].label)
						    : cgroup_series(out, samples_name, rows[i].label, m);
			r |= metrics_put(out, "%" PRIu64 "\n", rows[i].samples);
		}
	}
	snprintf(help, sizeof(help), "CPU time of tasks, by %s, estimated from the periods of the on-CPU samples.",
		 what);
	r |= metrics_family(out, seconds_name, "counter", help);
	for (size_t i = 0; i < nr && !r; i++) {
		r |= strcmp(label, "cgroup") ? series(out, seconds_name, label, rows[i].label)
					    : cgroup_series(out, seconds_name, rows[i].label, m);
		r |= metrics_seconds(out, rows[i].ns);
		r |= metrics_put(out, "\n");
	}
	free_rows(rows, nr);
	return r;
}

static int render_record_counts(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	static const struct {
		const char *name, *help;
	} families[] = {
		{ "ringtrace_records_produced_total", "Samples the BPF program produced, per CPU." },
		{ "ringtrace_records_lost_total", "Samples lost before they were counted or stored, per CPU." },
		{ "ringtrace_records_overwritten_total", "Samples overwritten by newer ones in overwrite mode, per CPU." },
	};
	int r = 0;

	for (size_t f = 0; f < 3 && !r; f++) {
		r |= metrics_family(out, families[f].name, "counter", families[f].help);
		for (size_t i = 0; i < m->nr_cpus && !r; i++) {
			const struct capture_cpu_counts *c = &m->cpus[i];
			uint64_t v = f == 0 ? c->produced : f == 1 ? c->lost : c->overwritten;

			r |= metrics_put(out, "%s{cpu=\"%d\",transport=\"%s\"} %" PRIu64 "\n", families[f].name,
					 c->cpu, m->transport, v);
		}
	}
	return r;
}

static int render_evictions(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	const char *name = "ringtrace_map_evictions_total";
	int r = 0;

	if (!m->nr_evictions)
		return 0;
	r |= metrics_family(out, name, "counter",
			    "Keys the kernel evicted from a full aggregation map to make room for new ones; their CPU time is counted as other.");
	for (size_t i = 0; i < m->nr_evictions && !r; i++)
		r |= metrics_put(out, "%s{map=\"%s\"} %" PRIu64 "\n", name, m->evictions[i].map,
				 m->evictions[i].keys);
	return r;
}

static int render_rings(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	int r = 0;

	if (!m->nr_rings)
		return 0;
	r |= metrics_family(out, "ringtrace_ring_used_bytes", "gauge",
			    "Bytes waiting in a ring, per CPU.");
	for (size_t i = 0; i < m->nr_rings && !r; i++)
		r |= metrics_put(out, "ringtrace_ring_used_bytes{cpu=\"%d\",ring=\"%s\"} %" PRIu64 "\n",
				 m->rings[i].cpu, m->rings[i].ring, m->rings[i].used);
	r |= metrics_family(out, "ringtrace_ring_capacity_bytes", "gauge", "Size of a ring, per CPU.");
	for (size_t i = 0; i < m->nr_rings && !r; i++)
		r |= metrics_put(out, "ringtrace_ring_capacity_bytes{cpu=\"%d\",ring=\"%s\"} %" PRIu64 "\n",
				 m->rings[i].cpu, m->rings[i].ring, m->rings[i].capacity);
	return r;
}

static int render_runq(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	const char *name = "ringtrace_runqueue_latency_seconds";
	uint64_t cumulative = 0;
	int r = metrics_family(out, name, "histogram",
			       "Time tasks waited in the run queue, from wakeup or preemption to running.");

	for (int i = 0; i < METRICS_RUNQ_BUCKETS - 1 && !r; i++) {
		cumulative += m->runq_buckets[i];
		/* bound 2^i ns, in seconds */
		r |= metrics_put(out, "%s_bucket{le=\"%.9g\"} %" PRIu64 "\n", name, (double)(1ULL << i) / 1e9,
				 cumulative);
	}
	r |= metrics_put(out, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", name, m->runq_count);
	r |= metrics_put(out, "%s_sum ", name);
	r |= metrics_seconds(out, m->runq_sum_ns);
	r |= metrics_put(out, "\n%s_count %" PRIu64 "\n", name, m->runq_count);
	return r;
}

static int render_programs(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	int r = 0;

	if (!m->bpf_stats || !m->nr_programs)
		return 0;
	r |= metrics_family(out, "ringtrace_bpf_program_runs_total", "counter",
			    "Runs of ringtrace's BPF programs (kernel.bpf_stats_enabled).");
	for (size_t i = 0; i < m->nr_programs && !r; i++)
		r |= metrics_put(out, "ringtrace_bpf_program_runs_total{program=\"%s\"} %" PRIu64 "\n",
				 m->programs[i].name, m->programs[i].runs);
	r |= metrics_family(out, "ringtrace_bpf_program_run_seconds_total", "counter",
			    "Time ringtrace's BPF programs ran (kernel.bpf_stats_enabled).");
	for (size_t i = 0; i < m->nr_programs && !r; i++) {
		r |= metrics_put(out, "ringtrace_bpf_program_run_seconds_total{program=\"%s\"} ",
				 m->programs[i].name);
		r |= metrics_seconds(out, m->programs[i].run_ns);
		r |= metrics_put(out, "\n");
	}
	return r;
}

/* A label value of ours (a version, a commit), escaped. */
static int label(struct byte_buffer *out, const char *key, const char *value, bool last)
{
	if (!value)
		value = "unknown";
	return metrics_put(out, "%s=\"", key) || metrics_escape_label(out, value, strlen(value)) ||
	       metrics_put(out, last ? "\"" : "\",");
}

static int render_build_info(struct byte_buffer *out, const struct metrics_snapshot *m)
{
	const struct metrics_build_info *b = m->build;
	int r = metrics_family(out, "ringtrace_build_info", "gauge",
			       "ringtrace's version, the commit it was built from and its libraries' versions, as labels; the value is always 1.");

	if (!b)
		return r | metrics_put(out, "ringtrace_build_info{version=\"%s\"} 1\n", m->version);
	r |= metrics_put(out, "ringtrace_build_info{");
	r |= label(out, "libbpf", b->libbpf, false);
	r |= label(out, "libmicrohttpd", b->libmicrohttpd, false);
	r |= label(out, "revision", b->revision, false);
	r |= label(out, "version", b->version, true);
	return r | metrics_put(out, "} 1\n");
}

/* One series of name per reason, label "reason". */
struct reason_count {
	const char *reason;
	uint64_t count;
};

static int render_reasons(struct byte_buffer *out, const char *name, const char *help,
			  const struct reason_count *rc, size_t n)
{
	int r = metrics_family(out, name, "counter", help);

	for (size_t i = 0; i < n && !r; i++)
		r |= metrics_put(out, "%s{reason=\"%s\"} %" PRIu64 "\n", name, rc[i].reason, rc[i].count);
	return r;
}

/* The in-kernel unwinder's counts, as the recording's totals print them:
 * stacks by how they ended, frames by how they were found. */
static int render_unwind(struct byte_buffer *out, const struct rt_unwind_counters *u)
{
	const struct reason_count found[] = {
		{ "registers", u->first_frames },
		{ "eh_frame", u->table_frames - u->debug_frame_frames },
		{ "debug_frame", u->debug_frame_frames },
		{ "frame_pointers", u->fp_frames }, { "signal", u->signal_frames },
	};
	const struct reason_count fallbacks[] = {
		{ "no_process", u->no_process_frames }, { "no_mapping", u->no_mapping },
		{ "no_table", u->no_table },     { "expression", u->expression },
		{ "stack_switch", u->stack_switch },
	};
	const struct reason_count ends[] = {
		{ "outermost", u->outermost },
		{ "return_zero", u->return_zero },   { "non_canonical", u->non_canonical },
		{ "read_failed", u->read_failed },   { "bad_frame", u->bad_frame },
		{ "truncated", u->truncated },     { "in_exec", u->in_exec },
		{ "copied", u->stacks_copied },
	};
	const struct reason_count copies[] = {
		{ "copied", u->stacks_copied }, { "over_budget", u->copies_over_budget },
	};
	int r = 0;

	r |= metrics_single(out, "ringtrace_unwind_stacks_total", "counter",
			    "User stacks sampled with --call-graph ehframe.", "%" PRIu64, u->samples);
	r |= render_reasons(out, "ringtrace_unwind_frames_total",
			    "User frames written, by how each was found (registers: the sampled "
			    "frame; they add up to the frames written).",
			    found, sizeof(found) / sizeof(found[0]));
	r |= metrics_single(out, "ringtrace_unwind_quick_frames_total", "counter",
			    "User frames the walk's quick path took (a row kept by pc or the frame "
			    "before's, stepped within the stack already read): a share of "
			    "ringtrace_unwind_frames_total.",
			    "%" PRIu64, u->quick_frames);
	r |= render_reasons(out, "ringtrace_unwind_fp_fallbacks_total",
			    "User frames found by frame pointers instead of .eh_frame rows, by "
			    "reason (no_process: the process's mappings not known yet).",
			    fallbacks, sizeof(fallbacks) / sizeof(fallbacks[0]));
	r |= render_reasons(out, "ringtrace_unwind_stack_ends_total",
			    "How user stacks ended: outermost (where the CFI ends them), "
			    "return_zero, non_canonical, "
			    "read_failed, bad_frame, truncated (127 frames), in_exec (the stack "
			    "of the image an exec replaced), copied (a file's table not loaded yet: "
			    "the stack copied, unwound when read); they add up to "
			    "ringtrace_unwind_stacks_total.",
			    ends, sizeof(ends) / sizeof(ends[0]));
	r |= render_reasons(out, "ringtrace_unwind_stack_copies_total",
			    "User stacks with a frame in a file whose table was not loaded yet: "
			    "copied for unwinding when read (copied), or not, over "
			    "--stack-copy-budget (over_budget).",
			    copies, sizeof(copies) / sizeof(copies[0]));
	return r;
}

/* What the container runtimes were asked and answered, and the cache. */
static int render_container_names(struct byte_buffer *out, struct container_names *names)
{
	static const char *const results[] = { "found", "not_found", "failed" };
	_Static_assert(CONTAINER_NAMES_MAX_ENTRIES == 4096, "the help text says 4096");
	struct container_names_counts c;
	int r;

	container_names_counts(names, &c);
	r = metrics_family(out, "ringtrace_container_runtime_requests_total", "counter",
			   "Questions to container runtimes for a container's labels, by runtime and answer "
			   "(failed: timeout, refused, unreadable).");
	for (int k = 0; k < RUNTIME_KINDS; k++)
		for (int i = 0; i < 3; i++)
			r |= metrics_put(out, "ringtrace_container_runtime_requests_total{runtime=\"%s\",result=\"%s\"} %" PRIu64 "\n",
					 runtime_kind_name((enum runtime_kind)k), results[i],
					 i == 0 ? c.found[k] : i == 1 ? c.not_found[k] : c.failed[k]);
	r |= metrics_family(out, "ringtrace_container_names_lookups_total", "counter",
			    "Lookups of containers' names: answered from the cache (hit), asked (miss), or "
			    "left unnamed past the request's time budget (skipped).");
	r |= metrics_put(out, "ringtrace_container_names_lookups_total{result=\"hit\"} %" PRIu64 "\n"
			      "ringtrace_container_names_lookups_total{result=\"miss\"} %" PRIu64 "\n"
			      "ringtrace_container_names_lookups_total{result=\"skipped\"} %" PRIu64 "\n",
			 c.hits, c.misses, c.skipped);
	r |= metrics_single(out, "ringtrace_container_names_cache_entries", "gauge",
			    "Containers whose names (or absence) are cached, at most "
			    "4096" ".", "%" PRIu64, c.entries);
	r |= metrics_single(out, "ringtrace_container_names_cache_evictions_total", "counter",
			    "Cached containers dropped to make room for others.", "%" PRIu64, c.evictions);
	return r;
}

int metrics_render(const struct metrics_snapshot *m, struct byte_buffer *out)
{
	int r = render_build_info(out, m);

	r |= render_cpu_rows(out, m, m->cgroups, m->nr_cgroups, 0, &m->cgroups_evicted, "cgroup",
			     "ringtrace_cpu_samples_total", "ringtrace_cpu_seconds_total",
			     "cgroup path (other: cgroups evicted from the kernel's map)");
	r |= render_cpu_rows(out, m, m->comms, m->nr_comms, m->top_comms, &m->comms_evicted, "comm",
			     NULL, "ringtrace_comm_cpu_seconds_total",
			     "comm (the busiest, the rest as other)");
	r |= render_record_counts(out, m);
	r |= render_evictions(out, m);
	r |= render_rings(out, m);
	r |= render_runq(out, m);
	r |= render_programs(out, m);
	if (m->unwind)
		r |= render_unwind(out, m->unwind);
	if (m->names)
		r |= render_container_names(out, m->names);
	r |= metrics_render_agent(out, m);
	return r ? -ENOMEM : 0;
}
