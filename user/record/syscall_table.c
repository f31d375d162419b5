/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall_table.c: prints trace --summary's rows as perf trace -s prints its
 * summary: per process a header and a table of its syscalls, in msec. */
#include "record/syscall_table.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/syscall_names.h"

struct process {
	uint32_t tgid;
	size_t first, nr; /* its rows */
	uint64_t events;  /* sys_enter + sys_exit, as perf counts events */
	char comm[16];
};

static int by_process_then_time(const void *a, const void *b)
{
	const struct syscall_summary_row *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->stats.total_ns != y->stats.total_ns)
		return x->stats.total_ns > y->stats.total_ns ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* perf prints the busiest process last. */
static int by_events(const void *a, const void *b)
{
	const struct process *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

double syscall_rel_stddev(const struct rt_syscall_stats *st)
{
	long double n = (long double)st->count, mean, sumsq, m2, variance;

	if (st->count < 2 || !st->total_ns)
		return 0;
	mean = (long double)st->total_ns / n;
	sumsq = (long double)st->sumsq_hi * 18446744073709551616.0L + (long double)st->sumsq_lo;
	m2 = sumsq - n * mean * mean;
	if (m2 < 0)
		m2 = 0;
	variance = m2 / (n - 1);
	return (double)(100.0L * sqrtl(variance / n) / mean);
}

static void print_name(const struct syscall_summary_row *r, FILE *out)
{
	const char *name = syscall_name(r->nr);

	if (name)
		fprintf(out, "   %-15s", name);
	else
		fprintf(out, "   %-15u", r->nr);
}

static void print_histogram(const struct syscall_summary_row *r, FILE *out)
{
	const struct rt_syscall_stats *st = &r->stats;
	uint64_t top = 0;
	int lo = -1, hi = -1;

	for (int b = 0; b < RT_SYSCALL_BUCKETS; b++) {
		if (!st->buckets[b])
			continue;
		if (lo < 0)
			lo = b;
		hi = b;
		if (st->buckets[b] > top)
			top = st->buckets[b];
	}
	if (lo < 0)
		return;
	fprintf(out, "\n");
	print_name(r, out);
	fprintf(out, " time (nsec)          : calls     distribution\n");
	for (int b = lo; b <= hi; b++) {
		uint64_t from = b ? 1ULL << (b - 1) : 0, to = 1ULL << b;
		int stars = (int)((double)st->buckets[b] * 40 / (double)top);
		char range[64];

		if (b == RT_SYSCALL_BUCKETS - 1)
			snprintf(range, sizeof(range), "(%" PRIu64 ", ...)", from);
		else
			snprintf(range, sizeof(range), "(%" PRIu64 ", %" PRIu64 "]", from, to);
		fprintf(out, "   %34s : %-9" PRIu64 " |%-40.*s|\n", range, (uint64_t)st->buckets[b], stars,
			"****************************************");
	}
}

static void print_process(const struct process *p, const struct syscall_summary_row *rows,
			  uint64_t all_events, bool histogram, FILE *out)
{
	fprintf(out, " %s (%" PRIu32 "), %" PRIu64 " events, %.1f%%\n\n", p->comm, p->tgid,
		p->events, all_events ? 100.0 * (double)p->events / (double)all_events : 0.0);
	fprintf(out, "   syscall            calls  errors  total       min       avg       max       stddev\n");
	fprintf(out, "                                     (msec)    (msec)    (msec)    (msec)        (%%)\n");
	fprintf(out, "   --------------- --------  ------ -------- --------- --------- ---------     ------\n");
	for (size_t i = p->first; i < p->first + p->nr; i++) {
		const struct rt_syscall_stats *st = &rows[i].stats;
		double msec = (double)st->total_ns / 1e6;

		print_name(&rows[i], out);
		fprintf(out, " %8" PRIu64 " %6" PRIu64 " %9.3f %9.3f %9.3f", (uint64_t)st->count, (uint64_t)st->errors,
			msec, (double)st->min_ns / 1e6, msec / (double)st->count);
		fprintf(out, " %9.3f %9.2f%%\n", (double)st->max_ns / 1e6, syscall_rel_stddev(st));
	}
	for (size_t i = p->first; histogram && i < p->first + p->nr; i++)
		print_histogram(&rows[i], out);
	fprintf(out, "\n\n");
}

void syscall_table_print(struct syscall_summary_row *rows, size_t nr_rows, bool histogram,
			 FILE *out)
{
	struct process *procs = calloc(nr_rows ? nr_rows : 1, sizeof(*procs));
	size_t nr_procs = 0;
	uint64_t all_events = 0;

	fprintf(out, "\n Summary of events:\n\n");
	if (!procs)
		return;
	qsort(rows, nr_rows, sizeof(*rows), by_process_then_time);
	for (size_t i = 0; i < nr_rows; i++) {
		struct process *p = nr_procs ? &procs[nr_procs - 1] : NULL;

		if (!nr_procs || p->tgid != rows[i].tgid) {
			p = &procs[nr_procs++];
			p->tgid = rows[i].tgid;
			p->first = i;
			memcpy(p->comm, rows[i].comm, sizeof(p->comm));
		}
		p->nr++;
		p->events += 2 * rows[i].stats.count;
		all_events += 2 * rows[i].stats.count;
	}
	qsort(procs, nr_procs, sizeof(*procs), by_events);
	for (size_t i = 0; i < nr_procs; i++)
		print_process(&procs[i], rows, all_events, histogram, out);
	free(procs);
}
