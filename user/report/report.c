/* SPDX-License-Identifier: GPL-2.0-only */
/* report.c: reads a recording in time order, resolves each sample's symbols,
 * and prints, per event, the rows of the chosen sort keys by overhead (self,
 * or with children), or the folded stacks, or an SVG flame graph. */
#include "report/report_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_data_reader.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "lib/direct_cache.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "report/folded_name.h"
#include "report/header_info.h"
#include "report/recording.h"
#include "report/report_pprof.h"
#include "symbols/address_space.h"
#include "sys/container_labels.h"
#include "sys/cpu_list.h"

static uint64_t hash_interned(const void *k)
{
	return hash_u64((uintptr_t)*(const char *const *)k);
}

static bool equal_interned(const void *a, const void *b)
{
	return *(const char *const *)a == *(const char *const *)b;
}

/* The sort keys as a mask of KEY(report_key), asked once per sample. */
static unsigned int key_mask(const struct report_options *o)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < o->nr_keys; i++)
		m |= KEY(o->keys[i]);
	return m;
}

static bool has_key(const struct report_options *o, enum report_key k)
{
	return key_mask(o) & KEY(k);
}

/* A frame of the sample being added (recording_each_frame's callback; ctx
 * is the report's state): kept as resolved for a table, named for stacks. */
static int on_frame(void *ctx, uint64_t ip, const struct resolved *where)
{
	struct report_state *st = ctx;

	if (st->nr_frames == MAX_FRAMES)
		return 1; /* deeper frames are left out */
	if (st->o->output == REPORT_TABLE)
		st->table_frames[st->nr_frames] = (struct table_frame){ ip, *where };
	else if (!(st->frame_names[st->nr_frames] =
			   folded_frame_name(&st->rec.as, where, st->o->output == REPORT_FLAMEGRAPH)))
		return -ENOMEM;
	st->nr_frames++;
	return 0;
}

/* comm;outermost;...;leaf, counted (or weighed); no name adds a frame or a line. */
static int add_to_stacks(struct report_state *st, const char *comm, uint64_t period)
{
	struct folded *f;
	const char *key;

	st->line.len = 0;
	if (folded_append_name(&st->line, comm, true))
		return -ENOMEM;
	for (unsigned int i = st->nr_frames; i-- > 0;)
		if (!byte_buffer_append(&st->line, ";", 1) ||
		    folded_append_name(&st->line, st->frame_names[i], false))
			return -ENOMEM;
	if (!byte_buffer_append(&st->line, "", 1))
		return -ENOMEM;
	key = address_space_intern(&st->rec.as, (const char *)st->line.data);
	if (!key)
		return -ENOMEM;
	f = hash_map_get(&st->stacks, &key);
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return -ENOMEM;
		f->stack = key;
		if (hash_map_put(&st->stacks, &f->stack, f)) {
			free(f);
			return -ENOMEM;
		}
	}
	f->count += st->weigh_by_time ? period : 1;
	return 0;
}

/* report's filters (the lists as script's; a pid and the time parsed
 * already) into f: 0, or -EINVAL with err set (a malformed list). */
int report_filter_init(struct sample_filter *f, const struct report_options *o, char *err,
		       size_t errlen)
{
	const struct sample_filter_options lists = {
		.comms = o->comm_filter, .pids = o->pid_list, .tids = o->tid_list, .cpus = o->cpu_filter,
	};
	int r = sample_filter_init(f, &lists, RECORDING_MAX_CPUS, err, errlen);

	if (r)
		return r;
	if (o->pid_filter >= 0 && f->nr_pids < SAMPLE_FILTER_MAX_IDS)
		f->pids[f->nr_pids++] = o->pid_filter;
	f->by_time = o->time_filter;
	f->time_start = o->time_start;
	f->time_end = o->time_end;
	return 0;
}

/* Whether the cgroup path names the container id, or an id that begins with
 * it (at least CONTAINER_ID_PREFIX_MIN digits: docker's short ids). */
static bool in_container(const char *cgroup, const char *id)
{
	struct container_labels c;
	size_t n = strlen(id);

	if (!container_labels_of(cgroup, &c) || !c.container_id[0])
		return false;
	return n >= CONTAINER_ID_PREFIX_MIN && !strncmp(c.container_id, id, n);
}

/* Whether the names the runtime gives the container of cgroup are those of
 * the filters given. */
static bool has_names(struct report_state *st, const char *cgroup)
{
	const struct report_options *o = st->o;
	struct kube_names n;

	if (!container_names_of_cgroup(o->names, cgroup, &st->names_budget_ns, &n))
		return false;
	return (!o->namespace_filter || !strcmp(n.namespace_, o->namespace_filter)) &&
	       (!o->pod_filter || !strcmp(n.pod, o->pod_filter)) &&
	       (!o->container_name_filter || !strcmp(n.container, o->container_name_filter));
}

static bool passes_filters(struct report_state *st, const struct perf_sample *s, const char *comm)
{
	const struct report_options *o = st->o;

	if (!sample_filter_keeps(&st->filter, s, comm))
		return false;
	if (o->cgroup_filter &&
	    strcmp(address_space_cgroup(&st->rec.as, s->cgroup), o->cgroup_filter))
		return false;
	if (o->container_filter &&
	    !in_container(address_space_cgroup(&st->rec.as, s->cgroup), o->container_filter))
		return false;
	/* the cgroup's path looked up only for a filter that reads it: a
	 * lookup a sample was 4% of a report of 1M samples */
	if (!o->namespace_filter && !o->pod_filter && !o->container_name_filter)
		return true;
	return has_names(st, address_space_cgroup(&st->rec.as, s->cgroup));
}

/* The leaf of a sample into its row (the table without --children or -g):
 * resolved, or its row as remembered by ip, pid and mode. Inline: a call a
 * sample was 3% of a report of 1M samples. */
static inline __attribute__((always_inline)) int
add_leaf(struct report_state *st, struct recording *rec, const struct row_key *base, uint64_t ip,
	 uint32_t pid, uint16_t cpumode, uint64_t period)
{
	uint64_t h = report_leaf_row_hash(base, ip, pid, cpumode);
	struct leaf_row *e = direct_cache_slot(&st->leaf_rows, h);
	struct resolved where;
	struct row *row;

	if (e && e->generation == rec->as.generation && e->ip == ip && e->pid == pid &&
	    e->cpumode == cpumode && report_row_equal(&e->base, base)) {
		e->row->samples++;
		e->row->period += period;
		return 0;
	}
	address_space_resolve(&rec->as, pid, ip, cpumode, &where);
	if (report_frame_key(st, base, &where, where.map_ip, where.kernel, &st->leaf_key))
		return -ENOMEM;
	row = report_get_row(st, &st->leaf_key);
	if (!row)
		return -ENOMEM;
	row->samples++;
	row->period += period;
	e = direct_cache_fill(&st->leaf_rows, h, &rec->as);
	if (e)
		*e = (struct leaf_row){ *base, ip, pid, rec->as.generation, cpumode, row };
	return 0;
}

/* Kernel leaves put off while kallsyms is still being read beside, that
 * the files of the user's programs are read meanwhile (half the wall time
 * of a report of a small recording went waiting for kallsyms); at most
 * this many, then the next one waits. */
#define DEFERRED_LEAVES_MAX 2048

/* The leaves put off, each resolved where the kernel was mapped when its
 * sample came (the one thing of the recording's a kernel address is
 * resolved by, besides kallsyms). */
static int add_deferred_leaves(struct report_state *st, struct recording *rec)
{
	const struct deferred_leaf *d = (const struct deferred_leaf *)st->deferred.data;
	size_t nr = st->deferred.len / sizeof(*d);
	uint64_t kernel_start = rec->as.kernel_start;
	int r = 0;

	for (size_t i = 0; i < nr && !r; i++) {
		rec->as.kernel_start = d[i].kernel_start;
		r = add_leaf(st, rec, &d[i].base, d[i].ip, d[i].pid, PERF_RECORD_MISC_KERNEL,
			     d[i].period);
	}
	rec->as.kernel_start = kernel_start;
	byte_buffer_reset(&st->deferred);
	return r;
}

static int on_sample(void *ctx, struct recording *rec, unsigned int event,
		     const struct perf_sample *s, const struct stream_record *sr)
{
	struct report_state *st = ctx;
	const struct report_options *o = st->o;
	struct event_totals *totals = &st->events[event];
	const char *comm = address_space_comm(&rec->as, s->pid, s->tid);
	uint64_t period = s->period ? s->period : 1;
	struct row_key base = { .event = (uint16_t)event };
	bool kernel = (s->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	int r;

	(void)sr;
	totals->samples++;
	if ((st->only_event >= 0 && (int)event != st->only_event) || !passes_filters(st, s, comm))
		return 0;
	totals->shown_samples++;
	totals->shown_period += period;
	if (st->keys & KEY(REPORT_KEY_COMM))
		base.comm = comm;
	/* perf's thread key: a row a thread, named by its last comm */
	if (st->keys & KEY(REPORT_KEY_PID))
		base.pid_tid |= (uint64_t)s->pid << 32 | s->tid;
	if (st->keys & KEY(REPORT_KEY_TID))
		base.pid_tid |= s->tid;
	if (st->keys & KEY(REPORT_KEY_CPU))
		base.cpu = s->cpu;
	if (st->keys & KEY(REPORT_KEY_CGROUP))
		base.cgroup = address_space_cgroup(&rec->as, s->cgroup);
	st->nr_frames = 0;
	if (o->output == REPORT_PPROF)
		return report_pprof_add(&st->pprof, rec, s, comm, period);
	if (o->output == REPORT_TABLE && !o->children && !o->graph.shown) {
		/* the leaf only, resolved only if a key needs it */
		struct row *row;

		if (st->keys & (KEY(REPORT_KEY_DSO) | KEY(REPORT_KEY_SYM))) {
			uint16_t cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;

			if (kernel && !address_space_kernel_ready(&rec->as)) {
				struct deferred_leaf d = { base, s->ip, period, rec->as.kernel_start,
							   s->pid };

				if (st->deferred.len < DEFERRED_LEAVES_MAX * sizeof(d))
					return byte_buffer_append(&st->deferred, &d, sizeof(d)) ? 0
												: -ENOMEM;
				if ((r = add_deferred_leaves(st, rec)))
					return r;
			}
			return add_leaf(st, rec, &base, s->ip, s->pid, cpumode, period);
		}
		row = report_get_row(st, &base);
		if (!row)
			return -ENOMEM;
		row->samples++;
		row->period += period;
		return 0;
	} else {
		r = recording_each_frame(rec, s, on_frame, st);
		if (r < 0)
			return r;
		if (!st->nr_frames)
			return 0;
	}
	return o->output == REPORT_TABLE ? report_add_to_table(st, &base, kernel, period,
							(uint64_t)s->pid << 32 | s->tid)
					 : add_to_stacks(st, comm, period);
}

/* --sort cgroup and --cgroup need the cgroup id in every sample, -g a
 * callchain in some. */
static int check_keys_recorded(const struct report_options *o, const struct recording *r,
			       char *err, size_t errlen)
{
	bool callchains = false;

	for (unsigned int e = 0; o->graph.shown && e < r->in.nr_events; e++)
		callchains |= !recording_is_tracking(r, e) &&
			      (r->in.events[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN);
	if (o->graph.shown && !callchains) {
		rt_format(err, errlen, "-g: %s has no callchains: record with -g (or --call-graph)",
			  o->input);
		return -EINVAL;
	}
	if (!has_key(o, REPORT_KEY_CGROUP) && !o->cgroup_filter && !o->container_filter &&
	    !o->namespace_filter && !o->pod_filter && !o->container_name_filter)
		return 0;
	for (unsigned int e = 0; e < r->in.nr_events; e++)
		if (!recording_is_tracking(r, e) && !(r->in.events[e].attr.sample_type & PERF_SAMPLE_CGROUP)) {
			rt_format(err, errlen, "%s: %s has no cgroup ids: record with -G or --all-cgroups",
				  o->cgroup_filter ? "--cgroup" : o->container_filter ? "container"
				  : o->namespace_filter || o->pod_filter || o->container_name_filter
				  ? "namespace, pod or container_name" : "--sort cgroup", o->input);
			return -EINVAL;
		}
	return 0;
}

/* One line when the event drawn (the first) is not the recording's only
 * one: the others, and how to choose. */
static void say_other_events(const struct report_state *st, unsigned int chosen)
{
	const struct perf_input *in = &st->rec.in;
	char others[512];
	size_t used = 0;

	others[0] = 0;
	for (unsigned int e = chosen + 1; e < in->nr_events && used < sizeof(others); e++)
		if (!recording_is_tracking(&st->rec, e))
			used += (size_t)snprintf(others + used, sizeof(others) - used, "%s%s",
						 used ? ", " : "", in->events[e].name ? in->events[e].name
										 : "(unnamed)");
	if (others[0])
		rt_info("ringtrace: %s: using the samples of event %s; it also has %s (choose one with --event)",
			st->o->input, in->events[chosen].name ? in->events[chosen].name : "(unnamed)",
			others);
}

/* Whether any event of the recording has callchains: without them perf
 * report's --children prints the plain table (report__setup_sample_type
 * cancels the cumulation, silently). */
static bool has_callchains(const struct perf_input *in)
{
	for (unsigned int e = 0; e < in->nr_events; e++)
		if (in->events[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			return true;
	return false;
}

/* --event by name; stacks of different events do not add up, so folded
 * stacks and flame graphs take the first event without it. */
static int choose_event(struct report_state *st, char *err, size_t errlen)
{
	const struct perf_input *in = &st->rec.in;

	st->only_event = -1;
	for (unsigned int e = 0; e < in->nr_events; e++) {
		if (recording_is_tracking(&st->rec, e))
			continue;
		if (st->o->event_filter ? in->events[e].name && !strcmp(in->events[e].name, st->o->event_filter)
					: st->o->output != REPORT_TABLE) {
			st->only_event = (int)e;
			st->weigh_by_time = in->events[e].name &&
					    !strcmp(in->events[e].name, OFFCPU_EVENT_NAME);
			if (!st->o->event_filter)
				say_other_events(st, e);
			return 0;
		}
	}
	if (st->o->event_filter) {
		rt_format(err, errlen, "--event %s: %s has no such event (ringtrace report %s lists them)",
			  st->o->event_filter, st->o->input, st->o->input);
		return -EINVAL;
	}
	return 0;
}

int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen)
{
	struct report_state st = { .o = o, .keys = key_mask(o), .names_budget_ns = o->names_budget_ns,
				   .callee_first = o->graph.order == REPORT_GRAPH_ORDER_DEFAULT
							   ? !o->children
							   : o->graph.order == REPORT_GRAPH_CALLEE };
	struct recording_visitor v = { .sample = on_sample, .ctx = &st };
	struct report_options without_children;
	int ret, r;

	hash_map_init(&st.rows, report_row_hash, report_row_equal);
	hash_map_init(&st.dso_names, hash_u64_key, equal_u64_key);
	hash_map_init(&st.sym_names, hash_u64_key, equal_u64_key);
	hash_map_init(&st.stacks, hash_interned, equal_interned);
	call_graph_init(&st.graph);
	if (report_filter_init(&st.filter, o, err, errlen)) {
		ret = REPORT_BAD_REQUEST;
		goto out_maps;
	}
	if ((ret = recording_open_parts(&st.rec, o->nr_inputs ? o->inputs : &o->input,
					 o->nr_inputs ? o->nr_inputs : 1, o->kallsyms, o->symfs, err,
					 errlen)))
		goto out_maps;
	if (o->header || o->header_only)
		header_info_print(&st.rec.in, out);
	if (o->header_only) {
		ret = 0;
		goto out;
	}
	if (o->children && !has_callchains(&st.rec.in)) {
		without_children = *o;
		without_children.children = false;
		st.o = o = &without_children;
		st.callee_first = o->graph.order != REPORT_GRAPH_CALLER;
	}
	st.events = calloc(st.rec.in.nr_events ? st.rec.in.nr_events : 1, sizeof(*st.events));
	st.frame_keys = malloc(MAX_FRAMES * sizeof(*st.frame_keys));
	st.table_frames = malloc(MAX_FRAMES * sizeof(*st.table_frames));
	st.frame_names = malloc(MAX_FRAMES * sizeof(*st.frame_names));
	st.graph_frames = malloc(REPORT_MAX_STACK * sizeof(*st.graph_frames));
	/* a hint: without it every leaf is resolved afresh */
	direct_cache_init(&st.leaf_rows, sizeof(struct leaf_row), LEAF_ROW_BITS, report_keep_leaf_row);
	if (!st.events || !st.frame_keys || !st.table_frames || !st.frame_names || !st.graph_frames ||
	    (o->output == REPORT_PPROF &&
	     report_pprof_init(&st.pprof, &st.rec, o->names, &st.names_budget_ns))) {
		rt_format(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (check_keys_recorded(o, &st.rec, err, errlen) || choose_event(&st, err, errlen)) {
		ret = REPORT_BAD_REQUEST;
		goto out;
	}
	err[0] = '\0';
	r = recording_replay(&st.rec, &v, err, errlen);
	if (!r)
		r = add_deferred_leaves(&st, &st.rec);
	if (r) {
		if (!err[0] && r == -E2BIG)
			rt_format(err, errlen, "-g: the call graphs of %s need more than %u nodes: "
				  "narrow them with --comm, --pid, --cpu or --time", o->input,
				  CALL_GRAPH_MAX_NODES);
		else if (!err[0])
			rt_format(err, errlen, "out of memory");
		ret = r < 0 ? r : -ENOMEM;
		goto out;
	}
	if (o->output == REPORT_TABLE) {
		if ((ret = report_print_table(&st, out))) {
			rt_format(err, errlen, "out of memory");
			goto out;
		}
	} else if (o->output == REPORT_PPROF) {
		if (st.only_event < 0) {
			rt_format(err, errlen, "%s has no sampled event to profile", o->input);
			ret = -ENOENT;
			goto out;
		}
		int64_t lost_start = o->time_filter && o->pprof_duration_nanos &&
					     st.rec.first_time > o->time_start
					     ? (int64_t)(st.rec.first_time - o->time_start) : 0;

		/* a window that began before the recording's first sample is as
		 * long as what the recording holds of it */
		if (o->pprof_duration_nanos > 0 && lost_start >= o->pprof_duration_nanos)
			lost_start = o->pprof_duration_nanos - 1;
		if ((ret = report_pprof_write(&st.pprof, &st.rec, &st.rec.in.events[st.only_event],
					      o->pprof_time_nanos + lost_start,
					      o->pprof_duration_nanos - lost_start,
					      o->pprof_path, out, err, errlen)))
			goto out;
	} else if ((ret = report_print_stacks(&st, out, err, errlen))) {
		goto out;
	}
	ret = 0;
out:
	recording_close(&st.rec);
out_maps:
	hash_map_free_all(&st.rows);
	hash_map_free_all(&st.dso_names);
	hash_map_free_all(&st.sym_names);
	hash_map_free_all(&st.stacks);
	byte_buffer_free(&st.line);
	byte_buffer_free(&st.deferred);
	sample_filter_free(&st.filter);
	free(st.events);
	free(st.frame_keys);
	free(st.table_frames);
	free(st.frame_names);
	free(st.graph_frames);
	call_graph_free(&st.graph);
	direct_cache_free(&st.leaf_rows);
	if (o->output == REPORT_PPROF)
		report_pprof_free(&st.pprof);
	return ret;
}

int report_run_to_memory(const struct report_options *o, char **data, size_t *len, char *err,
			 size_t errlen)
{
	FILE *mem = open_memstream(data, len);
	int ret;

	if (!mem) {
		*data = NULL;
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = report_run(o, mem, err, errlen);
	if (fclose(mem) && !ret) {
		rt_format(err, errlen, "out of memory");
		ret = -ENOMEM;
	}
	return ret;
}
