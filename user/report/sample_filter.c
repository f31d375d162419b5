/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_filter.c: which samples a reader of a recording keeps, as perf
 * script filters them: by comm, pid and tid (each a comma-separated list),
 * by CPU list and by time window. */
#include "report/sample_filter.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

int sample_filter_parse_time(const char *text, uint64_t *start, uint64_t *end, char *err,
			     size_t errlen)
{
	const char *comma = strchr(text, ',');
	double from = 0, to = INFINITY;
	char *stop;

	if (!comma) {
		rt_format(err, errlen, "invalid --time \"%s\": give START,END in seconds as perf script prints them, either may be empty",
			  text);
		return -EINVAL;
	}
	/* nanoseconds must fit in 64 bits: 1.8e10 s */
	if (comma != text) {
		from = strtod(text, &stop);
		if (stop != comma || !(from >= 0 && from < 1.8e10))
			goto bad;
	}
	if (comma[1]) {
		to = strtod(comma + 1, &stop);
		if (*stop || !(to >= from && to < 1.8e10))
			goto bad;
	}
	*start = (uint64_t)(from * 1e9 + 0.5);
	*end = isinf(to) ? UINT64_MAX : (uint64_t)(to * 1e9 + 0.5);
	return 0;
bad:
	rt_format(err, errlen, "invalid --time \"%s\": give START,END in seconds (e.g. 7493.5,7494), START before END",
		  text);
	return -EINVAL;
}

/* "1,42" into ids; name is the option's, for the message. */
static int parse_ids(const char *text, const char *name, int64_t *ids, unsigned int *nr,
		     char *err, size_t errlen)
{
	const char *p = text;

	*nr = 0;
	for (;;) {
		char *stop;
		long long v;

		errno = 0;
		v = strtoll(p, &stop, 10);
		if (stop == p || errno || v < 0 || v > INT32_MAX || (*stop && *stop != ',')) {
			rt_format(err, errlen, "invalid --%s \"%s\": give ids separated by commas, e.g. 1,42",
				  name, text);
			return -EINVAL;
		}
		if (*nr == SAMPLE_FILTER_MAX_IDS) {
			rt_format(err, errlen, "--%s \"%s\": more than %d ids", name, text,
				  SAMPLE_FILTER_MAX_IDS);
			return -EINVAL;
		}
		ids[(*nr)++] = v;
		if (!*stop)
			return 0;
		p = stop + 1;
	}
}

static int parse_comms(struct sample_filter *f, const char *text, char *err, size_t errlen)
{
	char *rest, *tok;

	f->comm_copy = strdup(text);
	if (!f->comm_copy)
		return -ENOMEM;
	rest = f->comm_copy;
	while ((tok = strsep(&rest, ","))) {
		if (!*tok || f->nr_comms == SAMPLE_FILTER_MAX_IDS) {
			rt_format(err, errlen, !*tok ? "invalid --comm \"%s\": give names separated by commas, e.g. bash,sshd"
						     : "--comm \"%s\": more than 256 names",
				  text);
			return -EINVAL;
		}
		f->comms[f->nr_comms++] = tok;
	}
	return 0;
}

int sample_filter_init(struct sample_filter *f, const struct sample_filter_options *o,
		       int max_cpus, char *err, size_t errlen)
{
	int r = 0;

	memset(f, 0, sizeof(*f));
	if (o->comms)
		r = parse_comms(f, o->comms, err, errlen);
	if (!r && o->pids)
		r = parse_ids(o->pids, "pid", f->pids, &f->nr_pids, err, errlen);
	if (!r && o->tids)
		r = parse_ids(o->tids, "tid", f->tids, &f->nr_tids, err, errlen);
	if (!r && o->cpus) {
		f->by_cpu = true;
		r = cpu_list_parse(&f->cpus, o->cpus, max_cpus, err, errlen);
	}
	if (!r && o->time) {
		f->by_time = true;
		r = sample_filter_parse_time(o->time, &f->time_start, &f->time_end, err, errlen);
	}
	if (r)
		sample_filter_free(f);
	return r;
}

static bool has_id(const int64_t *ids, unsigned int nr, uint64_t id)
{
	for (unsigned int i = 0; i < nr; i++)
		if ((uint64_t)ids[i] == id)
			return true;
	return false;
}

bool sample_filter_keeps(const struct sample_filter *f, const struct perf_sample *s,
			 const char *comm)
{
	if (f->nr_pids && !has_id(f->pids, f->nr_pids, s->pid))
		return false;
	if (f->nr_tids && !has_id(f->tids, f->nr_tids, s->tid))
		return false;
	if (f->by_cpu && !cpu_list_contains(&f->cpus, (int)s->cpu))
		return false;
	if (f->by_time && (s->time < f->time_start || s->time > f->time_end))
		return false;
	if (f->nr_comms) {
		unsigned int i;

		for (i = 0; i < f->nr_comms && strcmp(comm, f->comms[i]); i++)
			;
		if (i == f->nr_comms)
			return false;
	}
	return true;
}

void sample_filter_free(struct sample_filter *f)
{
	free(f->comm_copy);
	cpu_list_free(&f->cpus);
	memset(f, 0, sizeof(*f));
}
