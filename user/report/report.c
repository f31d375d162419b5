/* SPDX-License-Identifier: GPL-2.0-only */
/* report.c: reads a recording in time order, resolves each sample's symbols,
 * and prints, per event, the rows of the chosen sort keys by overhead (self,
 * or with children), or the folded stacks, or an SVG flame graph. */
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_data_reader.h"
#include "format/perf_record.h"
#include "lib/byte_buffer.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "report/flamegraph.h"
#include "report/folded_name.h"
#include "report/recording.h"
#include "report/report_output.h"
#include "report/report_pprof.h"
#include "symbols/address_space.h"
#include "lib/terminal_text.h"
#include "sys/cpu_list.h"
#include "sys/output_dir.h"

static const char *const key_titles[] = {
	[REPORT_KEY_COMM] = "Command", [REPORT_KEY_PID] = "Pid", [REPORT_KEY_TID] = "Tid",
	[REPORT_KEY_DSO] = "Shared Object", [REPORT_KEY_SYM] = "Symbol", [REPORT_KEY_CPU] = "CPU",
	[REPORT_KEY_CGROUP] = "Cgroup",
};

/* One row of the report; fields of keys not selected stay zero so that
 * hashing and comparing the whole key groups by the selected ones only. */
struct row_key {
	const char *comm;
	const char *dso;
	const char *sym;
	const char *cgroup;
	uint64_t pid_tid;
	uint32_t cpu;
	uint16_t kernel;
	uint16_t event; /* index in the input's events: always a key */
};

struct row {
	struct row_key key;
	uint64_t samples;
	uint64_t period;   /* self */
	uint64_t children; /* self and every sample it was a caller in */
};

/* Once per sample: the fields folded by multiplying (a polynomial in an odd
 * constant, cheap), then mixed once. */
static uint64_t hash_row(const void *k)
{
	const struct row_key *r = k;
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	uint64_t h = (uintptr_t)r->comm;

	h = h * m + (uintptr_t)r->dso;
	h = h * m + (uintptr_t)r->sym;
	h = h * m + (uintptr_t)r->cgroup;
	h = h * m + r->pid_tid;
	h = h * m + ((uint64_t)r->cpu << 32 | (uint64_t)r->event << 1 | r->kernel);
	return hash_u64(h);
}

static bool equal_row(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	return x->comm == y->comm && x->dso == y->dso && x->sym == y->sym &&
	       x->cgroup == y->cgroup && x->pid_tid == y->pid_tid && x->cpu == y->cpu &&
	       x->kernel == y->kernel && x->event == y->event;
}

/* A folded stack's key: the address of its interned string (one string per
 * stack, so the pointer tells stacks apart). */
static uint64_t hash_interned(const void *k)
{
	return hash_u64((uintptr_t)*(const char *const *)k);
}

static bool equal_interned(const void *a, const void *b)
{
	return *(const char *const *)a == *(const char *const *)b;
}

/* What one event's samples add up to. */
struct event_totals {
	uint64_t samples;       /* all of them */
	uint64_t shown_samples; /* those that passed the filters */
	uint64_t shown_period;  /* the 100% of the event's section */
};

/* A unique folded stack and its samples (or, for offcpu-time, its
 * nanoseconds off CPU). */
struct folded {
	const char *stack; /* interned */
	uint64_t count;
};

/* The off-CPU event (record --off-cpu, perf record --off-cpu): its folded
 * stacks count microseconds off CPU, as bcc's offcputime folds them. */
#define OFFCPU_EVENT_NAME "offcpu-time"

#define MAX_FRAMES 512

/* Without --children, the row a sample's leaf lands in, kept by what decides
 * it (the sample's own keys, and its ip as resolved in its process until the
 * mappings change): the same few thousand leaves come back a million times,
 * and a hit skips resolving, naming and hashing the row. Direct-mapped. */
#define LEAF_ROW_BITS 12
#define LEAF_ROW_SLOTS (1u << LEAF_ROW_BITS)

struct leaf_row {
	struct row_key base; /* the sample's keys but dso and sym */
	uint64_t ip;
	uint32_t pid;
	uint32_t generation; /* of the mappings; 0: empty */
	uint16_t cpumode;
	struct row *row;
};

struct report_state {
	const struct report_options *o;
	struct recording rec;
	struct cpu_list cpus;        /* --cpu */
	struct hash_map rows;
	struct hash_map stacks;      /* &interned stack -> struct folded */
	struct event_totals *events; /* by index in rec.in.events */
	int only_event;              /* the one event shown, or -1 */
	bool weigh_by_time;          /* it is offcpu-time: stacks weigh its periods */
	/* the sample being added, frame by frame (MAX_FRAMES each) */
	struct row_key *frame_keys;
	const char **frame_names;
	unsigned int nr_frames;
	struct byte_buffer line;
	struct report_pprof pprof;   /* --pprof */
	struct leaf_row *leaf_rows;  /* LEAF_ROW_SLOTS, or NULL */
	unsigned int keys;           /* key_mask(o) */
};

static bool has_key(const struct report_options *o, enum report_key k)
{
	for (unsigned int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

/* The sort keys as a mask of 1 << report_key, asked once per sample. */
static unsigned int key_mask(const struct report_options *o)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < o->nr_keys; i++)
		m |= 1u << o->keys[i];
	return m;
}

#define KEY(k) (1u << (k))

static struct row *get_row(struct report_state *st, const struct row_key *key)
{
	struct row *row = hash_map_get(&st->rows, key);

	if (row)
		return row;
	row = calloc(1, sizeof(*row));
	if (!row)
		return NULL;
	row->key = *key;
	if (hash_map_put(&st->rows, &row->key, row)) {
		free(row);
		return NULL;
	}
	return row;
}

/* The key of a sample's row, the frame's dso and symbol in it. An address
 * without a symbol is a row of its own, named as perf names it: the address
 * perf's map gives it, "%#.16llx" (its offset in the mapped file, or the ip).
 * -1 if memory ran out. */
static int frame_key(struct report_state *st, const struct row_key *base,
		     const struct resolved *where, struct row_key *key)
{
	*key = *base;
	if (st->keys & KEY(REPORT_KEY_DSO))
		key->dso = where->dso;
	if (st->keys & KEY(REPORT_KEY_SYM)) {
		key->sym = where->symbol;
		key->kernel = where->kernel;
		if (where->symbol[0] == '[' && !strcmp(where->symbol, "[unknown]")) {
			char name[32];

			snprintf(name, sizeof(name), "%#.16" PRIx64, where->map_ip);
			key->sym = address_space_intern(&st->rec.as, name);
			if (!key->sym)
				return -1;
		}
	}
	return 0;
}

struct frame_walk {
	struct report_state *st;
	const struct row_key *base;
};

static int on_frame(void *ctx, uint64_t ip, const struct resolved *where)
{
	struct frame_walk *w = ctx;
	struct report_state *st = w->st;

	(void)ip;
	if (st->nr_frames == MAX_FRAMES)
		return 1; /* deeper frames are left out */
	if (st->o->output == REPORT_TABLE) {
		if (frame_key(st, w->base, where, &st->frame_keys[st->nr_frames]))
			return -ENOMEM;
	} else if (!(st->frame_names[st->nr_frames] =
			     folded_frame_name(&st->rec.as, where, st->o->output == REPORT_FLAMEGRAPH)))
		return -ENOMEM;
	st->nr_frames++;
	return 0;
}

/* Self to the leaf's row; with --children, the period to every distinct row
 * on the stack once. */
static int add_to_table(struct report_state *st, const struct perf_sample *s, uint64_t period)
{
	struct row *leaf = get_row(st, &st->frame_keys[0]);

	if (!leaf)
		return -ENOMEM;
	leaf->samples++;
	leaf->period += period;
	if (!st->o->children)
		return 0;
	(void)s;
	for (unsigned int i = 0; i < st->nr_frames; i++) {
		struct row *row;
		bool seen = false;

		for (unsigned int j = 0; j < i && !seen; j++)
			seen = equal_row(&st->frame_keys[j], &st->frame_keys[i]);
		if (seen)
			continue;
		row = get_row(st, &st->frame_keys[i]);
		if (!row)
			return -ENOMEM;
		row->children += period;
	}
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

static bool passes_filters(struct report_state *st, const struct perf_sample *s, const char *comm)
{
	const struct report_options *o = st->o;

	if (o->pid_filter >= 0 && s->pid != (uint64_t)o->pid_filter)
		return false;
	if (o->comm_filter && strcmp(comm, o->comm_filter))
		return false;
	if (o->cpu_filter && !cpu_list_contains(&st->cpus, (int)s->cpu))
		return false;
	if (o->time_filter && (s->time < o->time_start || s->time > o->time_end))
		return false;
	if (o->cgroup_filter &&
	    strcmp(address_space_cgroup(&st->rec.as, s->cgroup), o->cgroup_filter))
		return false;
	return true;
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
	struct frame_walk walk = { st, &base };
	struct resolved where;
	int r;

	(void)sr;
	totals->samples++;
	if ((st->only_event >= 0 && (int)event != st->only_event) || !passes_filters(st, s, comm))
		return 0;
	totals->shown_samples++;
	totals->shown_period += period;
	if (st->keys & KEY(REPORT_KEY_COMM))
		base.comm = comm;
	if (st->keys & KEY(REPORT_KEY_PID))
		base.pid_tid |= (uint64_t)s->pid << 32;
	if (st->keys & KEY(REPORT_KEY_TID))
		base.pid_tid |= s->tid;
	if (st->keys & KEY(REPORT_KEY_CPU))
		base.cpu = s->cpu;
	if (st->keys & KEY(REPORT_KEY_CGROUP))
		base.cgroup = address_space_cgroup(&rec->as, s->cgroup);
	st->nr_frames = 0;
	if (o->output == REPORT_PPROF)
		return report_pprof_add(&st->pprof, rec, s, comm, period);
	if (o->output == REPORT_TABLE && !o->children) {
		/* the leaf only, resolved only if a key needs it */
		if (st->keys & (KEY(REPORT_KEY_DSO) | KEY(REPORT_KEY_SYM))) {
			uint16_t cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
			uint64_t h = (s->ip ^ ((uint64_t)s->pid << 40) ^ ((uint64_t)cpumode << 32) ^
				      (uintptr_t)base.comm ^ base.pid_tid ^ base.cpu) *
				     0x9e3779b97f4a7c15ULL;
			struct leaf_row *e = st->leaf_rows ? &st->leaf_rows[h >> (64 - LEAF_ROW_BITS)] : NULL;
			struct row *row;

			if (e && e->generation == rec->as.generation && e->ip == s->ip &&
			    e->pid == s->pid && e->cpumode == cpumode && equal_row(&e->base, &base)) {
				e->row->samples++;
				e->row->period += period;
				return 0;
			}
			address_space_resolve(&rec->as, s->pid, s->ip, cpumode, &where);
			if (frame_key(st, &base, &where, &st->frame_keys[0]))
				return -ENOMEM;
			row = get_row(st, &st->frame_keys[0]);
			if (!row)
				return -ENOMEM;
			row->samples++;
			row->period += period;
			if (e)
				*e = (struct leaf_row){ base, s->ip, s->pid, rec->as.generation, cpumode, row };
			return 0;
		}
		st->frame_keys[0] = base;
		st->nr_frames = 1;
	} else {
		r = recording_each_frame(rec, s, on_frame, &walk);
		if (r < 0)
			return r;
		if (!st->nr_frames)
			return 0;
	}
	return o->output == REPORT_TABLE ? add_to_table(st, s, period)
					 : add_to_stacks(st, comm, period);
}

/* Two names, NULL (a key not selected) first. */
static int compare_names(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* Rows of equal weight in the order of their keys: the same order on every
 * run (the table's iteration order follows addresses, which ASLR moves). */
static int compare_keys(const struct row_key *x, const struct row_key *y)
{
	int c;

	if ((c = compare_names(x->comm, y->comm)) || (c = compare_names(x->dso, y->dso)) ||
	    (c = compare_names(x->sym, y->sym)) || (c = compare_names(x->cgroup, y->cgroup)))
		return c;
	if (x->pid_tid != y->pid_tid)
		return x->pid_tid < y->pid_tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (int)x->kernel - (int)y->kernel;
}

static int compare_rows(const void *a, const void *b, bool children)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (x->key.event != y->key.event)
		return x->key.event < y->key.event ? -1 : 1;
	if (children && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return compare_keys(&x->key, &y->key);
}

static int compare_rows_self(const void *a, const void *b)
{
	return compare_rows(a, b, false);
}

static int compare_rows_children(const void *a, const void *b)
{
	return compare_rows(a, b, true);
}

struct collect {
	void **items;
	size_t nr;
};

static void collect_item(void *value, void *ctx)
{
	struct collect *c = ctx;

	c->items[c->nr++] = value;
}

/* The text of one key of a row. */
/* A row's key k as its table prints it: names a local user chose (comms,
 * symbols, paths, cgroups) with their control bytes escaped. */
static const char *key_text(const struct row *r, enum report_key k, char *buf, size_t len)
{
	switch (k) {
	case REPORT_KEY_COMM:
		return terminal_text(r->key.comm, buf, len);
	case REPORT_KEY_PID:
		snprintf(buf, len, "%" PRIu64, r->key.pid_tid >> 32);
		return buf;
	case REPORT_KEY_TID:
		snprintf(buf, len, "%" PRIu64, r->key.pid_tid & 0xffffffffu);
		return buf;
	case REPORT_KEY_DSO: {
		const char *slash = strrchr(r->key.dso, '/');

		return terminal_text(slash && r->key.dso[0] != '[' ? slash + 1 : r->key.dso, buf, len);
	}
	case REPORT_KEY_SYM: {
		char name[1024];

		snprintf(buf, len, "[%c] %s", r->key.kernel ? 'k' : '.',
			 terminal_text(r->key.sym, name, sizeof(name)));
		return buf;
	}
	case REPORT_KEY_CPU:
		snprintf(buf, len, "%03u", r->key.cpu);
		return buf;
	case REPORT_KEY_CGROUP:
		return terminal_text(r->key.cgroup, buf, len);
	}
	return "";
}

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* One event's table; rows are that event's, sorted. */
static void print_rows(const struct report_state *st, FILE *out, struct row **rows, size_t nr,
		       uint64_t total_period)
{
	const struct report_options *o = st->o;
	int width[REPORT_MAX_KEYS];
	char buf[1024];

	for (unsigned int k = 0; k < o->nr_keys; k++) {
		width[k] = (int)strlen(key_titles[o->keys[k]]);
		for (size_t i = 0; i < nr; i++) {
			int w = (int)strlen(key_text(rows[i], o->keys[k], buf, sizeof(buf)));

			if (w > width[k])
				width[k] = w;
		}
		if (width[k] > 60)
			width[k] = 60;
	}
	if (o->children)
		fprintf(out, "# %8s  %8s  %10s", "Children", "Self", "Samples");
	else
		fprintf(out, "# %8s  %10s", "Overhead", "Samples");
	for (unsigned int k = 0; k < o->nr_keys; k++)
		fprintf(out, "  %-*s", k + 1 < o->nr_keys ? width[k] : 0, key_titles[o->keys[k]]);
	fprintf(out, "\n#\n");
	for (size_t i = 0; i < nr; i++) {
		if (o->children)
			fprintf(out, "  %8.2f%%  %7.2f%%  %10" PRIu64,
				percent(rows[i]->children, total_period),
				percent(rows[i]->period, total_period), rows[i]->samples);
		else
			fprintf(out, "  %8.2f%%  %10" PRIu64, percent(rows[i]->period, total_period),
				rows[i]->samples);
		for (unsigned int k = 0; k < o->nr_keys; k++)
			fprintf(out, "  %-*s", k + 1 < o->nr_keys ? width[k] : 0,
				key_text(rows[i], o->keys[k], buf, sizeof(buf)));
		fputc('\n', out);
	}
}

static bool any_filter(const struct report_options *o)
{
	return o->pid_filter >= 0 || o->comm_filter || o->cpu_filter || o->cgroup_filter ||
	       o->time_filter;
}

static void print_section_header(const struct report_state *st, FILE *out, unsigned int e)
{
	const struct report_options *o = st->o;
	const struct perf_input_event *ev = &st->rec.in.events[e];
	const struct event_totals *t = &st->events[e];

	fprintf(out, "#\n# event %s: %" PRIu64 " samples\n", ev->name ? ev->name : "(unnamed)",
		t->samples);
	if (any_filter(o)) {
		fprintf(out, "# showing %" PRIu64 " samples of", t->shown_samples);
		if (o->comm_filter)
			fprintf(out, " comm %s", o->comm_filter);
		if (o->pid_filter >= 0)
			fprintf(out, " pid %" PRId64, o->pid_filter);
		if (o->cpu_filter)
			fprintf(out, " cpu %s", o->cpu_filter);
		if (o->cgroup_filter)
			fprintf(out, " cgroup %s", o->cgroup_filter);
		if (o->time_filter)
			fprintf(out, " time %.6f-%.6f", (double)o->time_start / 1e9,
				o->time_end == UINT64_MAX ? INFINITY : (double)o->time_end / 1e9);
		fprintf(out, "; percentages are of those\n");
	}
	fprintf(out, "#\n");
}

/* Samples, losses per CPU and the duration, as the table's header. */
static void print_header(const struct report_state *st, FILE *out)
{
	const struct recording *r = &st->rec;
	double seconds = r->last_time > r->first_time
				 ? (double)(r->last_time - r->first_time) / 1e9
				 : 0.0;
	bool any = false;

	fprintf(out, "# ringtrace report of %s\n", st->o->input);
	if (r->never_ended)
		fprintf(out, "# %" PRIu64 " samples, %" PRIu64 " lost and more not known: the recording "
			"never ended (no %s/%s: killed?), its losses after its last LOST record were "
			"never counted, %.3f s\n",
			r->samples, r->lost, st->o->input, OUTPUT_TOTALS_FILE, seconds);
	else
		fprintf(out, "# %" PRIu64 " samples, %" PRIu64 " lost, %.3f s\n", r->samples,
			r->lost, seconds);
	fprintf(out, "# lost per CPU:");
	for (int c = 0; c < RECORDING_MAX_CPUS; c++)
		if (r->lost_by_cpu && r->lost_by_cpu[c]) {
			fprintf(out, " cpu%d %" PRIu64, c, r->lost_by_cpu[c]);
			any = true;
		}
	fprintf(out, "%s\n", any ? "" : " none");
	if (r->sideband_lost)
		fprintf(out, "# side-band records lost: %" PRIu64 " (some tasks may show unknown symbols)\n",
			r->sideband_lost);
}

static int print_table(struct report_state *st, FILE *out)
{
	struct collect c = { calloc(st->rows.len ? st->rows.len : 1, sizeof(void *)), 0 };
	struct row **rows = (struct row **)c.items;
	size_t at = 0;

	if (!c.items)
		return -1;
	hash_map_each(&st->rows, collect_item, &c);
	qsort(rows, c.nr, sizeof(*rows), st->o->children ? compare_rows_children : compare_rows_self);
	print_header(st, out);
	for (unsigned int e = 0; e < st->rec.in.nr_events; e++) {
		size_t n = 0;

		if (!st->events[e].samples)
			continue;
		while (at + n < c.nr && rows[at + n]->key.event == e)
			n++;
		print_section_header(st, out, e);
		print_rows(st, out, rows + at, n, st->events[e].shown_period);
		at += n;
	}
	free(c.items);
	return 0;
}

static int compare_folded(const void *a, const void *b)
{
	const struct folded *x = *(const struct folded *const *)a, *y = *(const struct folded *const *)b;

	return strcmp(x->stack, y->stack);
}

/* The unique stacks, sorted as stackcollapse sorts them. */
static struct folded **sorted_stacks(struct report_state *st, size_t *nr)
{
	struct collect c = { calloc(st->stacks.len ? st->stacks.len : 1, sizeof(void *)), 0 };

	if (!c.items)
		return NULL;
	hash_map_each(&st->stacks, collect_item, &c);
	qsort(c.items, c.nr, sizeof(void *), compare_folded);
	/* nanoseconds off CPU to microseconds, rounded */
	for (size_t i = 0; st->weigh_by_time && i < c.nr; i++)
		((struct folded *)c.items[i])->count = (((struct folded *)c.items[i])->count + 500) / 1000;
	*nr = c.nr;
	return (struct folded **)c.items;
}

static int print_stacks(struct report_state *st, FILE *out, char *err, size_t errlen)
{
	size_t nr = 0;
	struct folded **stacks = sorted_stacks(st, &nr);
	int ret = 0;

	if (!stacks) {
		rt_format(err, errlen, "out of memory");
		return -1;
	}
	if (st->o->output == REPORT_FOLDED) {
		for (size_t i = 0; i < nr; i++)
			fprintf(out, "%s %" PRIu64 "\n", stacks[i]->stack, stacks[i]->count);
	} else {
		struct flamegraph_stack *fs = calloc(nr ? nr : 1, sizeof(*fs));
		struct flamegraph_options fo = { .title = st->o->title, .width = st->o->width,
						 .inverted = st->o->inverted,
						 .count_name = st->weigh_by_time ? "us" : NULL };
		char title[512], close_err[512];
		FILE *f = NULL;

		if (!fs) {
			free(stacks);
			rt_format(err, errlen, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < nr; i++) {
			fs[i].stack = stacks[i]->stack;
			fs[i].count = stacks[i]->count;
		}
		snprintf(title, sizeof(title), "ringtrace: %s", st->o->input);
		if (!fo.title)
			fo.title = title;
		f = report_output_open(st->o->flamegraph_path, out, err, errlen);
		ret = f ? flamegraph_write(f, &fo, fs, nr, err, errlen) : -1;
		if (f && report_output_close(f, out, st->o->flamegraph_path, close_err,
					     sizeof(close_err)) && !ret) {
			rt_format(err, errlen, "%s", close_err);
			ret = -1;
		}
		free(fs);
	}
	free(stacks);
	return ret;
}

/* --sort cgroup and --cgroup need the cgroup id in every sample. */
static int check_keys_recorded(const struct report_options *o, const struct recording *r,
			       char *err, size_t errlen)
{
	if (!has_key(o, REPORT_KEY_CGROUP) && !o->cgroup_filter)
		return 0;
	for (unsigned int e = 0; e < r->in.nr_events; e++)
		if (!recording_is_tracking(r, e) && !(r->in.events[e].attr.sample_type & PERF_SAMPLE_CGROUP)) {
			rt_format(err, errlen, "%s: %s has no cgroup ids: record with -G or --all-cgroups",
				  o->cgroup_filter ? "--cgroup" : "--sort cgroup", o->input);
			return -1;
		}
	return 0;
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
			return 0;
		}
	}
	if (st->o->event_filter) {
		rt_format(err, errlen, "--event %s: %s has no such event (ringtrace report %s lists them)",
			  st->o->event_filter, st->o->input, st->o->input);
		return -1;
	}
	return 0;
}

int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen)
{
	struct report_state st = { .o = o, .keys = key_mask(o) };
	struct recording_visitor v = { .sample = on_sample, .ctx = &st };
	int ret = -1, r;

	hash_map_init(&st.rows, hash_row, equal_row);
	hash_map_init(&st.stacks, hash_interned, equal_interned);
	if (o->cpu_filter && cpu_list_parse(&st.cpus, o->cpu_filter, RECORDING_MAX_CPUS, err, errlen)) {
		ret = REPORT_BAD_REQUEST;
		goto out_maps;
	}
	if (recording_open(&st.rec, o->input, o->kallsyms, o->symfs, err, errlen))
		goto out_maps;
	st.events = calloc(st.rec.in.nr_events ? st.rec.in.nr_events : 1, sizeof(*st.events));
	st.frame_keys = malloc(MAX_FRAMES * sizeof(*st.frame_keys));
	st.frame_names = malloc(MAX_FRAMES * sizeof(*st.frame_names));
	/* a hint: without it every leaf is resolved afresh */
	if (o->output == REPORT_TABLE && !o->children)
		st.leaf_rows = calloc(LEAF_ROW_SLOTS, sizeof(*st.leaf_rows));
	if (!st.events || !st.frame_keys || !st.frame_names ||
	    (o->output == REPORT_PPROF && report_pprof_init(&st.pprof, &st.rec))) {
		rt_format(err, errlen, "out of memory");
		goto out;
	}
	if (check_keys_recorded(o, &st.rec, err, errlen) || choose_event(&st, err, errlen)) {
		ret = REPORT_BAD_REQUEST;
		goto out;
	}
	err[0] = '\0';
	r = recording_replay(&st.rec, &v, err, errlen);
	if (r) {
		if (!err[0])
			rt_format(err, errlen, "out of memory");
		goto out;
	}
	if (o->output == REPORT_TABLE) {
		if (print_table(&st, out)) {
			rt_format(err, errlen, "out of memory");
			goto out;
		}
	} else if (o->output == REPORT_PPROF) {
		if (st.only_event < 0) {
			rt_format(err, errlen, "%s has no sampled event to profile", o->input);
			goto out;
		}
		if (report_pprof_write(&st.pprof, &st.rec, &st.rec.in.events[st.only_event],
				       o->pprof_path, out, err, errlen))
			goto out;
	} else if (print_stacks(&st, out, err, errlen)) {
		goto out;
	}
	ret = 0;
out:
	recording_close(&st.rec);
out_maps:
	hash_map_free_all(&st.rows);
	hash_map_free_all(&st.stacks);
	byte_buffer_free(&st.line);
	cpu_list_free(&st.cpus);
	free(st.events);
	free(st.frame_keys);
	free(st.frame_names);
	free(st.leaf_rows);
	if (o->output == REPORT_PPROF)
		report_pprof_free(&st.pprof);
	return ret;
}
