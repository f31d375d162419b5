/* report.c: reads a recording in time order, resolves each sample's symbol,
 * and prints, per event, the rows of the chosen sort keys by overhead. */
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "address_space.h"
#include "hash_map.h"
#include "log.h"
#include "perf_data_reader.h"
#include "perf_record.h"
#include "record_stream.h"

static const char *const key_names[] = {
	[REPORT_KEY_COMM] = "comm", [REPORT_KEY_PID] = "pid", [REPORT_KEY_TID] = "tid",
	[REPORT_KEY_DSO] = "dso",   [REPORT_KEY_SYM] = "sym", [REPORT_KEY_CPU] = "cpu",
	[REPORT_KEY_CGROUP] = "cgroup",
};

static const char *const key_titles[] = {
	[REPORT_KEY_COMM] = "Command", [REPORT_KEY_PID] = "Pid", [REPORT_KEY_TID] = "Tid",
	[REPORT_KEY_DSO] = "Shared Object", [REPORT_KEY_SYM] = "Symbol", [REPORT_KEY_CPU] = "CPU",
	[REPORT_KEY_CGROUP] = "Cgroup",
};

#define NR_KEY_NAMES (sizeof(key_names) / sizeof(key_names[0]))

int report_parse_sort(struct report_options *o, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *save = NULL, *tok;

	if (!copy)
		return -1;
	o->nr_keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < NR_KEY_NAMES; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == NR_KEY_NAMES) {
			rt_format(err, errlen, "unknown sort key \"%s\": use comm, pid, tid, dso, sym, cpu or cgroup",
				  tok);
			free(copy);
			return -1;
		}
		if (o->nr_keys == REPORT_MAX_KEYS) {
			rt_format(err, errlen, "too many sort keys in \"%s\"", text);
			free(copy);
			return -1;
		}
		o->keys[o->nr_keys++] = (enum report_key)k;
	}
	free(copy);
	if (!o->nr_keys) {
		rt_format(err, errlen, "empty sort key list");
		return -1;
	}
	return 0;
}

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
	uint64_t period;
};

static uint64_t hash_row(const void *k)
{
	const struct row_key *r = k;
	uint64_t h = hash_u64((uintptr_t)r->comm);

	h = hash_u64(h ^ (uintptr_t)r->dso);
	h = hash_u64(h ^ (uintptr_t)r->sym);
	h = hash_u64(h ^ (uintptr_t)r->cgroup);
	h = hash_u64(h ^ r->pid_tid);
	return hash_u64(h ^ ((uint64_t)r->cpu << 32 | (uint64_t)r->event << 1 | r->kernel));
}

static bool equal_row(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	return x->comm == y->comm && x->dso == y->dso && x->sym == y->sym &&
	       x->cgroup == y->cgroup && x->pid_tid == y->pid_tid && x->cpu == y->cpu &&
	       x->kernel == y->kernel && x->event == y->event;
}

/* What one event's samples add up to. */
struct event_totals {
	uint64_t samples;       /* all of them */
	uint64_t shown_samples; /* those that passed the filters */
	uint64_t shown_period;  /* the 100% of the event's section */
};

struct report_state {
	const struct report_options *o;
	const struct perf_input *in;
	struct address_space as;
	struct hash_map rows;
	struct event_totals *events; /* by index in in->events */
	uint64_t samples, lost, first_time, last_time;
};

static bool has_key(const struct report_options *o, enum report_key k)
{
	for (unsigned int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

static int add_sample(struct report_state *st, unsigned int event, const struct perf_sample *s)
{
	const struct report_options *o = st->o;
	struct event_totals *totals = &st->events[event];
	uint16_t cpumode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const char *comm = address_space_comm(&st->as, s->pid, s->tid);
	struct row_key key = { .event = (uint16_t)event };
	struct resolved r;
	struct row *row;

	st->samples++;
	totals->samples++;
	if ((o->pid_filter >= 0 && s->pid != (uint64_t)o->pid_filter) ||
	    (o->comm_filter && strcmp(comm, o->comm_filter)))
		return 0;
	totals->shown_samples++;
	totals->shown_period += s->period ? s->period : 1;
	if (has_key(o, REPORT_KEY_DSO) || has_key(o, REPORT_KEY_SYM)) {
		address_space_resolve(&st->as, s->pid, s->ip, cpumode, &r);
		if (has_key(o, REPORT_KEY_DSO))
			key.dso = r.dso;
		if (has_key(o, REPORT_KEY_SYM)) {
			key.sym = r.symbol;
			key.kernel = r.kernel;
		}
	}
	if (has_key(o, REPORT_KEY_COMM))
		key.comm = comm;
	if (has_key(o, REPORT_KEY_PID))
		key.pid_tid |= (uint64_t)s->pid << 32;
	if (has_key(o, REPORT_KEY_TID))
		key.pid_tid |= s->tid;
	if (has_key(o, REPORT_KEY_CPU))
		key.cpu = s->cpu;
	if (has_key(o, REPORT_KEY_CGROUP))
		key.cgroup = address_space_cgroup(&st->as, s->cgroup);
	row = hash_map_get(&st->rows, &key);
	if (!row) {
		row = calloc(1, sizeof(*row));
		if (!row)
			return -1;
		row->key = key;
		if (hash_map_put(&st->rows, &row->key, row)) {
			free(row);
			return -1;
		}
	}
	row->samples++;
	row->period += s->period ? s->period : 1;
	return 0;
}

static int process_record(struct report_state *st, const struct stream_record *sr, char *err,
			  size_t errlen)
{
	const struct perf_event_header *rec = sr->rec;
	const struct perf_input_file *f = &st->in->files[sr->file];

	if (sr->time) {
		if (!st->first_time || sr->time < st->first_time)
			st->first_time = sr->time;
		if (sr->time > st->last_time)
			st->last_time = sr->time;
	}
	switch (rec->type) {
	case PERF_RECORD_SAMPLE: {
		const struct perf_input_event *ev = perf_input_event_of(st->in, rec);
		struct perf_sample s;

		if (!ev || perf_sample_decode(rec, ev->attr.sample_type, &s))
			goto malformed;
		return add_sample(st, (unsigned int)(ev - st->in->events), &s);
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		struct perf_lost l;

		if (perf_lost_decode(rec, &l))
			goto malformed;
		st->lost += l.lost;
		return 0;
	}
	default:
		if (address_space_apply(&st->as, rec, st->in->sample_id_type))
			goto malformed;
		return 0;
	}
malformed:
	rt_format(err, errlen, "%s: offset %llu: malformed %s record", f->path,
		  (unsigned long long)sr->offset,
		  perf_record_type_name(rec->type) ? perf_record_type_name(rec->type) : "unknown");
	return -1;
}

static int compare_rows(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (x->key.event != y->key.event)
		return x->key.event < y->key.event ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return 0;
}

struct collect {
	struct row **rows;
	size_t nr;
};

static void collect_row(void *value, void *ctx)
{
	struct collect *c = ctx;

	c->rows[c->nr++] = value;
}

static void free_row(void *value, void *ctx)
{
	(void)ctx;
	free(value);
}

/* The text of one key of a row. */
static const char *key_text(const struct row *r, enum report_key k, char *buf, size_t len)
{
	switch (k) {
	case REPORT_KEY_COMM:
		return r->key.comm;
	case REPORT_KEY_PID:
		snprintf(buf, len, "%" PRIu64, r->key.pid_tid >> 32);
		return buf;
	case REPORT_KEY_TID:
		snprintf(buf, len, "%" PRIu64, r->key.pid_tid & 0xffffffffu);
		return buf;
	case REPORT_KEY_DSO: {
		const char *slash = strrchr(r->key.dso, '/');

		return slash && r->key.dso[0] != '[' ? slash + 1 : r->key.dso;
	}
	case REPORT_KEY_SYM:
		snprintf(buf, len, "[%c] %s", r->key.kernel ? 'k' : '.', r->key.sym);
		return buf;
	case REPORT_KEY_CPU:
		snprintf(buf, len, "%03u", r->key.cpu);
		return buf;
	case REPORT_KEY_CGROUP:
		return r->key.cgroup;
	}
	return "";
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
	fprintf(out, "# %8s  %10s", "Overhead", "Samples");
	for (unsigned int k = 0; k < o->nr_keys; k++)
		fprintf(out, "  %-*s", k + 1 < o->nr_keys ? width[k] : 0, key_titles[o->keys[k]]);
	fprintf(out, "\n#\n");
	for (size_t i = 0; i < nr; i++) {
		double pct = total_period ? 100.0 * (double)rows[i]->period / (double)total_period
					  : 0.0;

		fprintf(out, "  %8.2f%%  %10" PRIu64, pct, rows[i]->samples);
		for (unsigned int k = 0; k < o->nr_keys; k++)
			fprintf(out, "  %-*s", k + 1 < o->nr_keys ? width[k] : 0,
				key_text(rows[i], o->keys[k], buf, sizeof(buf)));
		fputc('\n', out);
	}
}

static void print_section_header(const struct report_state *st, FILE *out, unsigned int e)
{
	const struct report_options *o = st->o;
	const struct perf_input_event *ev = &st->in->events[e];
	const struct event_totals *t = &st->events[e];

	fprintf(out, "#\n# event %s: %" PRIu64 " samples\n", ev->name ? ev->name : "(unnamed)",
		t->samples);
	if (o->pid_filter >= 0 || o->comm_filter) {
		fprintf(out, "# showing %" PRIu64 " samples of", t->shown_samples);
		if (o->comm_filter)
			fprintf(out, " comm %s", o->comm_filter);
		if (o->pid_filter >= 0)
			fprintf(out, " pid %" PRId64, o->pid_filter);
		fprintf(out, "; percentages are of those\n");
	}
	fprintf(out, "#\n");
}

static int print_report(struct report_state *st, FILE *out)
{
	struct collect c = { calloc(st->rows.len ? st->rows.len : 1, sizeof(struct row *)), 0 };
	double seconds = st->last_time > st->first_time
				 ? (double)(st->last_time - st->first_time) / 1e9
				 : 0.0;
	size_t at = 0;

	if (!c.rows)
		return -1;
	hash_map_each(&st->rows, collect_row, &c);
	qsort(c.rows, c.nr, sizeof(*c.rows), compare_rows);
	fprintf(out, "# ringtrace report of %s\n", st->o->input);
	fprintf(out, "# %" PRIu64 " samples, %" PRIu64 " lost, %.3f s\n", st->samples, st->lost,
		seconds);
	for (unsigned int e = 0; e < st->in->nr_events; e++) {
		size_t n = 0;

		if (!st->events[e].samples)
			continue;
		while (at + n < c.nr && c.rows[at + n]->key.event == e)
			n++;
		print_section_header(st, out, e);
		print_rows(st, out, c.rows + at, n, st->events[e].shown_period);
		at += n;
	}
	free(c.rows);
	return 0;
}

/* --sort cgroup needs the cgroup id in every sample. */
static int check_keys_recorded(const struct report_options *o, const struct perf_input *in,
			       char *err, size_t errlen)
{
	if (!has_key(o, REPORT_KEY_CGROUP))
		return 0;
	for (unsigned int e = 0; e < in->nr_events; e++) {
		const struct perf_event_attr *a = &in->events[e].attr;
		bool tracking = a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY;

		if (!tracking && !(a->sample_type & PERF_SAMPLE_CGROUP)) {
			rt_format(err, errlen, "--sort cgroup: %s has no cgroup ids: record with -G or --all-cgroups",
				  o->input);
			return -1;
		}
	}
	return 0;
}

int report_run(const struct report_options *o, FILE *out, char *err, size_t errlen)
{
	struct report_state st = { .o = o };
	struct perf_input in;
	struct record_stream *rs = NULL;
	struct stream_record sr;
	int ret = -1;

	if (perf_input_open(&in, o->input, err, errlen))
		return -1;
	st.in = &in;
	address_space_init(&st.as, o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	hash_map_init(&st.rows, hash_row, equal_row);
	st.events = calloc(in.nr_events, sizeof(*st.events));
	if (!st.events) {
		rt_format(err, errlen, "out of memory");
		goto out;
	}
	if (check_keys_recorded(o, &in, err, errlen))
		goto out;
	rs = record_stream_open(&in, err, errlen);
	if (!rs)
		goto out;
	while (record_stream_next(rs, &sr))
		if (process_record(&st, &sr, err, errlen))
			goto out;
	if (print_report(&st, out)) {
		rt_format(err, errlen, "out of memory");
		goto out;
	}
	ret = 0;
out:
	record_stream_close(rs);
	hash_map_each(&st.rows, free_row, NULL);
	hash_map_free(&st.rows);
	free(st.events);
	address_space_free(&st.as);
	perf_input_close(&in);
	return ret;
}
