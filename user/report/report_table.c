/* SPDX-License-Identifier: GPL-2.0-only */
/* report_table.c: report's table: the rows of each event sorted by weight
 * (self, or with children), their keys in columns as perf report --stdio
 * prints them (with -g, each row's call graph under it), under a header of
 * samples, losses and filters. */
#include "report/report_state.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hex_digits.h"
#include "lib/terminal_text.h"
#include "sys/output_dir.h"

static const char *const key_titles[] = {
	/* perf's thread key (sort "pid"): its header as perf pads it */
	[REPORT_KEY_COMM] = "Command", [REPORT_KEY_PID] = "    Pid:Command", [REPORT_KEY_TID] = "Tid",
	[REPORT_KEY_DSO] = "Shared Object", [REPORT_KEY_SYM] = "Symbol", [REPORT_KEY_CPU] = "CPU",
	[REPORT_KEY_CGROUP] = "Cgroup",
};

/* Two names, NULL (a key not selected) first. */
static int compare_names(const char *a, const char *b)
{
	return a == b ? 0 : !a ? -1 : !b ? 1 : strcmp(a, b);
}

/* The address a row without a symbol ("0x...", row_sym_is_address) is
 * named by ("%#.16llx", report_rows.c): its 16 digits by hex_digits_16,
 * strtoull's locale-aware parse being 3% of a report's CPU when sorting a
 * few thousand such rows; anything else by strtoull. */
static uint64_t row_address(const char *sym)
{
	uint64_t v;

	return hex_digits_16(sym + 2, &v) && !sym[18] ? v : strtoull(sym, NULL, 16);
}

/* Two rows' symbols as perf orders ties: names first, by name
 * (sort__sym_sort), then addresses without a symbol as its collapsed
 * entries were ordered, by the sign of their difference (_sort__addr_cmp's
 * int64_t: kernel addresses before user ones). */
static int compare_symbols(const char *a, const char *b)
{
	if (row_sym_is_address(a) != row_sym_is_address(b))
		return row_sym_is_address(a) ? 1 : -1;
	if (row_sym_is_address(a)) {
		int64_t d = (int64_t)(row_address(a) - row_address(b));

		if (d)
			return d < 0 ? -1 : 1;
	}
	return compare_names(a, b);
}

/* The name a row's file is shown by, as perf's short name: a path's last
 * part; "[kernel.kallsyms]" and the like whole. */
static const char *shown_dso(const char *dso)
{
	const char *slash = strrchr(dso, '/');

	return slash && dso[0] != '[' ? slash + 1 : dso;
}

/* Two rows' files as perf's sort__dso_cmp orders ties: by the name it shows
 * (two files of one name are equal there: their rows go by symbol), an
 * address in no file ("[unknown]": perf has no dso) after them. */
static int compare_dsos(const char *a, const char *b)
{
	bool a_none = a && !strcmp(a, "[unknown]"), b_none = b && !strcmp(b, "[unknown]");

	if (a_none != b_none)
		return a_none ? 1 : -1;
	if (!a || !b)
		return compare_names(a, b);
	return strcmp(shown_dso(a), shown_dso(b));
}

/* Rows of equal weight in the order of their keys: the same order on every
 * run (the table's iteration order follows addresses, which ASLR moves). */
static int compare_keys(const struct row_key *x, const struct row_key *y)
{
	int c;

	if ((c = compare_names(x->comm, y->comm)) || (c = compare_dsos(x->dso, y->dso)) ||
	    (c = compare_symbols(x->sym, y->sym)) || (c = compare_names(x->cgroup, y->cgroup)) ||
	    (c = compare_names(x->dso, y->dso)))
		return c;
	if ((c = compare_names(x->sym_dso, y->sym_dso)))
		return c;
	if (x->sym_start != y->sym_start)
		return x->sym_start < y->sym_start ? -1 : 1;
	if (x->pid_tid != y->pid_tid)
		return x->pid_tid < y->pid_tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (int)x->kernel - (int)y->kernel;
}

/* Rows of equal weight in the order of --sort's keys, as perf's
 * hist_entry__sort compares them key by key (a thread by its id); then by
 * every key, that the order is total. */
static int compare_sort_keys(const struct row_key *x, const struct row_key *y,
			     const struct report_options *o)
{
	for (unsigned int k = 0; k < o->nr_keys; k++) {
		int c = 0;

		switch (o->keys[k]) {
		case REPORT_KEY_COMM:
			c = compare_names(x->comm, y->comm);
			break;
		case REPORT_KEY_PID:
		case REPORT_KEY_TID:
			if ((uint32_t)x->pid_tid != (uint32_t)y->pid_tid)
				c = (uint32_t)x->pid_tid < (uint32_t)y->pid_tid ? -1 : 1;
			break;
		case REPORT_KEY_DSO:
			c = compare_dsos(x->dso, y->dso);
			break;
		case REPORT_KEY_SYM:
			c = compare_symbols(x->sym, y->sym);
			break;
		case REPORT_KEY_CPU:
			c = x->cpu == y->cpu ? 0 : x->cpu < y->cpu ? -1 : 1;
			break;
		case REPORT_KEY_CGROUP:
			c = compare_names(x->cgroup, y->cgroup);
			break;
		}
		if (c)
			return c;
	}
	return compare_keys(x, y);
}

/* How rows are ordered: by self, or by children; with -g, rows of equal
 * children made by one thread as perf's __hpp__sort_acc puts them, the
 * caller above its callees (by the depth of their stacks). */
enum row_order { BY_SELF, BY_CHILDREN, BY_CHILDREN_CALLER_GRAPH, BY_CHILDREN_CALLEE_GRAPH };

struct row_sort {
	enum row_order order;
	const struct report_options *o;
};

static int compare_rows(const void *a, const void *b, void *ctx)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;
	const struct row_sort *rs = ctx;
	enum row_order order = rs->order;

	if (x->key.event != y->key.event)
		return x->key.event < y->key.event ? -1 : 1;
	if (order != BY_SELF && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (order >= BY_CHILDREN_CALLER_GRAPH && x->thread == y->thread &&
	    x->graph_depth != y->graph_depth)
		return (x->graph_depth > y->graph_depth) == (order == BY_CHILDREN_CALLER_GRAPH) ? -1
											    : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return compare_sort_keys(&x->key, &y->key, rs->o);
}

/* A row's key k as its table prints it: names a local user chose (comms,
 * symbols, paths, cgroups) with their control bytes escaped. "pid" is
 * perf's thread key: the thread's id and its last comm ("%7d:%s"). */
static const char *key_text(struct address_space *as, const struct row *r, enum report_key k,
			    char *buf, size_t len)
{
	switch (k) {
	case REPORT_KEY_COMM:
		return terminal_text(r->key.comm, buf, len);
	case REPORT_KEY_PID: {
		uint32_t pid = (uint32_t)(r->key.pid_tid >> 32), tid = (uint32_t)r->key.pid_tid;
		int n = snprintf(buf, len, "%7u:", tid);
		const char *comm = terminal_text(address_space_comm(as, pid, tid), buf + n, len - n);

		if (comm != buf + n)
			snprintf(buf + n, len - n, "%s", comm);
		return buf;
	}
	case REPORT_KEY_TID:
		snprintf(buf, len, "%" PRIu64, r->key.pid_tid & 0xffffffffu);
		return buf;
	case REPORT_KEY_DSO:
		return terminal_text(shown_dso(r->key.dso), buf, len);
	case REPORT_KEY_SYM: {
		const char *name = terminal_text(r->key.sym, buf + 4, len - 4);

		if (name != buf + 4)
			snprintf(buf + 4, len - 4, "%s", name);
		memcpy(buf, r->key.kernel ? "[k] " : "[.] ", 4);
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

/* Whether the k-th key's column is padded to its width: every column but
 * the last, and the last too when perf's key pads itself (a comm, a thread,
 * a DSO, a CPU; not a symbol or a cgroup). */
static bool padded(const struct report_options *o, unsigned int k)
{
	enum report_key key = o->keys[k];

	return k + 1 < o->nr_keys || key == REPORT_KEY_COMM || key == REPORT_KEY_PID ||
	       key == REPORT_KEY_DSO || key == REPORT_KEY_CPU;
}

static double percent(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* How a row's call graph is printed (-g), as perf prints its callchains. */
static struct graph_print graph_print_of(const struct report_options *o, const struct row *r,
					 uint64_t total_period)
{
	return (struct graph_print){
		.total = total_period,
		.row_period = o->children ? r->children : r->period,
		/* perf's min_callchain_hits, a u64 of a double */
		.min_period = (uint64_t)((double)total_period * (o->graph.threshold / 100)),
		.print_limit = o->graph.print_limit,
		.skip_first = o->sort_by_sym_first,
	};
}

/* Room for every key of these rows as key_text writes them: a symbol's
 * name whole, as perf prints it, whatever its length (each control byte
 * escaped in 4 at most). */
static size_t key_room(struct row *const *rows, size_t nr)
{
	size_t room = 1024;

	for (size_t i = 0; i < nr; i++) {
		size_t n = rows[i]->key.sym ? 4 * strlen(rows[i]->key.sym) + 8 : 0;

		if (n > room)
			room = n;
	}
	return room;
}

/* One event's table; rows are that event's, sorted: at most o->max_rows
 * of them, a last line saying how many more there are. 0, or -ENOMEM. */
static int print_rows(struct report_state *st, FILE *out, struct row **rows, size_t nr,
		      uint64_t total_period)
{
	const struct report_options *o = st->o;
	int width[REPORT_MAX_KEYS];
	size_t shown = 0, left_out = 0, room = key_room(rows, nr);
	char *buf = malloc(room);

	if (!buf)
		return -ENOMEM;

	for (unsigned int k = 0; k < o->nr_keys; k++) {
		width[k] = (int)strlen(key_titles[o->keys[k]]);
		for (size_t i = 0; i < nr; i++) {
			int w = (int)strlen(key_text(&st->rec.as, rows[i], o->keys[k], buf, room));

			if (w > width[k])
				width[k] = w;
		}
		if (width[k] > 60)
			width[k] = 60;
	}
	/* perf report -n's columns: percentages right-aligned under their
	 * titles (8 wide), the samples 12 */
	if (o->children)
		fprintf(out, "# %8s  %8s  %12s", "Children", "Self", "Samples");
	else
		fprintf(out, "# %8s  %12s", "Overhead", "Samples");
	for (unsigned int k = 0; k < o->nr_keys; k++)
		fprintf(out, "  %-*s", padded(o, k) ? width[k] : 0, key_titles[o->keys[k]]);
	fprintf(out, "\n#\n");
	for (size_t i = 0; i < nr; i++) {
		/* perf's hist_entry__get_percent_limit: children's with --children */
		if (percent(o->children ? rows[i]->children : rows[i]->period, total_period) <
		    o->percent_limit)
			continue;
		if (o->max_rows && shown == o->max_rows) {
			left_out++;
			continue;
		}
		shown++;
		if (o->children)
			fprintf(out, "  %7.2f%%  %7.2f%%  %12" PRIu64,
				percent(rows[i]->children, total_period),
				percent(rows[i]->period, total_period), rows[i]->samples);
		else
			fprintf(out, "  %7.2f%%  %12" PRIu64, percent(rows[i]->period, total_period),
				rows[i]->samples);
		for (unsigned int k = 0; k < o->nr_keys; k++)
			fprintf(out, "  %-*s", padded(o, k) ? width[k] : 0,
				key_text(&st->rec.as, rows[i], o->keys[k], buf, room));
		fputc('\n', out);
		if (o->graph.shown) {
			struct graph_print gp = graph_print_of(o, rows[i], total_period);

			if (call_graph_print(rows[i]->graph, &gp, out)) {
				free(buf);
				return -ENOMEM;
			}
		}
	}
	free(buf);
	if (left_out)
		fprintf(out, "#\n# %zu more rows left out: a terminal shows the first %u of each "
			"event; ringtrace report --stdio (or into a pipe) prints them all\n",
			left_out, o->max_rows);
	return 0;
}

static bool any_filter(const struct report_options *o)
{
	return o->pid_filter >= 0 || o->comm_filter || o->pid_list || o->tid_list ||
	       o->cpu_filter || o->cgroup_filter || o->time_filter;
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
		if (o->pid_list)
			fprintf(out, " pid %s", o->pid_list);
		if (o->pid_filter >= 0)
			fprintf(out, " pid %" PRId64, o->pid_filter);
		if (o->tid_list)
			fprintf(out, " tid %s", o->tid_list);
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

	if (st->o->nr_inputs > 1)
		fprintf(out, "# ringtrace report of %u outputs, %s to %s\n", st->o->nr_inputs,
			st->o->inputs[0], st->o->inputs[st->o->nr_inputs - 1]);
	else
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

int report_print_table(struct report_state *st, FILE *out)
{
	struct row **rows = (struct row **)hash_map_values(&st->rows);
	struct row_sort rs = { st->o->children ? BY_CHILDREN : BY_SELF, st->o };
	size_t at = 0, nr = st->rows.len;

	if (!rows)
		return -ENOMEM;
	qsort_r(rows, nr, sizeof(*rows), compare_rows, &rs);
	/* perf's order of -g's ties is not transitive (the stacks' depths are
	 * compared between rows of one thread only): sorted again from the
	 * order above, that the same rows come out in the same order */
	if (st->o->children && st->o->graph.shown) {
		rs.order = st->callee_first ? BY_CHILDREN_CALLEE_GRAPH : BY_CHILDREN_CALLER_GRAPH;
		qsort_r(rows, nr, sizeof(*rows), compare_rows, &rs);
	}
	print_header(st, out);
	for (unsigned int e = 0; e < st->rec.in.nr_events; e++) {
		size_t n = 0;

		if (!st->events[e].samples)
			continue;
		while (at + n < nr && rows[at + n]->key.event == e)
			n++;
		print_section_header(st, out, e);
		if (print_rows(st, out, rows + at, n, st->events[e].shown_period)) {
			free(rows);
			return -ENOMEM;
		}
		at += n;
	}
	free(rows);
	return 0;
}
