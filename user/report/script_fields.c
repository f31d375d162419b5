/* SPDX-License-Identifier: GPL-2.0-only */
/* script_fields.c: which fields script prints for each kind of event: perf
 * script's defaults, and its -F syntax to choose them. */
#include "report/script_fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

static const struct {
	const char *name;
	uint32_t field;
} field_names[] = {
	{ "comm", SCRIPT_FIELD_COMM },	   { "tid", SCRIPT_FIELD_TID },
	{ "pid", SCRIPT_FIELD_PID },	   { "time", SCRIPT_FIELD_TIME },
	{ "cpu", SCRIPT_FIELD_CPU },	   { "event", SCRIPT_FIELD_EVENT },
	{ "trace", SCRIPT_FIELD_TRACE },   { "ip", SCRIPT_FIELD_IP },
	{ "sym", SCRIPT_FIELD_SYM },	   { "dso", SCRIPT_FIELD_DSO },
	{ "symoff", SCRIPT_FIELD_SYMOFF }, { "period", SCRIPT_FIELD_PERIOD },
};

/* perf's fields that a kind never has: a tracepoint's record for the others. */
static const uint32_t invalid_fields[SCRIPT_KINDS] = { SCRIPT_FIELD_TRACE, 0 };

void script_fields_default(struct script_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->fields[SCRIPT_KIND_SAMPLE] = SCRIPT_FIELD_COMM | SCRIPT_FIELD_TID | SCRIPT_FIELD_CPU |
					SCRIPT_FIELD_TIME | SCRIPT_FIELD_EVENT | SCRIPT_FIELD_IP |
					SCRIPT_FIELD_SYM | SCRIPT_FIELD_SYMOFF | SCRIPT_FIELD_DSO |
					SCRIPT_FIELD_PERIOD;
	f->fields[SCRIPT_KIND_TRACEPOINT] = SCRIPT_FIELD_COMM | SCRIPT_FIELD_TID |
					    SCRIPT_FIELD_CPU | SCRIPT_FIELD_TIME |
					    SCRIPT_FIELD_EVENT | SCRIPT_FIELD_TRACE;
}

int script_fields_parse(struct script_fields *f, const char *arg, char *err, size_t errlen)
{
	enum { DEFAULT, SET, ADD, REMOVE } change = DEFAULT;
	char *copy = strdup(arg), *list, *tok, *save = NULL;
	int kind = -1, ret = -EINVAL;

	if (!copy) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	list = strchr(copy, ':');
	if (list) {
		*list++ = '\0';
		if (!strcmp(copy, "sw") || !strcmp(copy, "hw"))
			kind = SCRIPT_KIND_SAMPLE;
		else if (!strcmp(copy, "trace"))
			kind = SCRIPT_KIND_TRACEPOINT;
		else {
			rt_format(err, errlen, "-F %s: unknown event type \"%s\": use sw, hw or trace",
				  arg, copy);
			goto out;
		}
	} else {
		list = copy;
		if (!*list) {
			rt_format(err, errlen, "-F: no fields named: name some, e.g. -F comm,tid,ip,sym");
			goto out;
		}
	}
	/* a list that only adds or removes keeps the defaults */
	if (!strchr(list, '+') && !strchr(list, '-')) {
		for (int k = 0; k < SCRIPT_KINDS; k++) {
			if (kind < 0 || kind == k) {
				f->fields[k] = 0;
				f->user_set[k] = true;
				f->replaced[k] = true;
			}
		}
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		if (*tok == '+' || *tok == '-') {
			if (change == SET)
				goto badmix;
			change = *tok == '+' ? ADD : REMOVE;
			tok++;
		} else {
			if (change != SET && change != DEFAULT)
				goto badmix;
			change = SET;
		}
		for (i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++)
			if (!strcmp(tok, field_names[i].name))
				break;
		if (i == sizeof(field_names) / sizeof(field_names[0])) {
			rt_format(err, errlen,
				  "-F: unknown field \"%s\": use comm, tid, pid, cpu, time, period, "
				  "event, ip, sym, symoff, dso or trace", tok);
			goto out;
		}
		for (int k = 0; k < SCRIPT_KINDS; k++) {
			if (kind >= 0 && kind != k)
				continue;
			if (invalid_fields[k] & field_names[i].field) {
				if (kind >= 0) {
					rt_format(err, errlen, "-F: '%s' is not valid for %s events",
						  tok, k == SCRIPT_KIND_TRACEPOINT ? "trace" : "sw");
					goto out;
				}
				continue; /* perf warns and ignores it */
			}
			if (change == REMOVE)
				f->fields[k] &= ~field_names[i].field;
			else
				f->fields[k] |= field_names[i].field;
			f->user_set[k] = true;
		}
	}
	ret = 0;
	goto out;
badmix:
	rt_format(err, errlen, "-F %s: cannot mix +field or -field with fields that replace the defaults",
		  arg);
out:
	free(copy);
	return ret;
}

int script_fields_check(const struct script_fields *f, char *err, size_t errlen)
{
	for (int k = 0; k < SCRIPT_KINDS; k++) {
		uint32_t x = f->fields[k];

		if ((x & SCRIPT_FIELD_SYM) && !(x & SCRIPT_FIELD_IP)) {
			rt_format(err, errlen, "-F: sym needs ip (the address to name): add ip");
			return -EINVAL;
		}
		if ((x & SCRIPT_FIELD_SYMOFF) && !(x & SCRIPT_FIELD_SYM)) {
			rt_format(err, errlen, "-F: symoff needs sym: add sym");
			return -EINVAL;
		}
		if ((x & SCRIPT_FIELD_DSO) && !(x & SCRIPT_FIELD_IP)) {
			rt_format(err, errlen, "-F: dso needs ip (the address to look up): add ip");
			return -EINVAL;
		}
	}
	return 0;
}

int script_fields_fit(struct script_fields *f, const struct perf_input *in, bool no_callchain,
		      bool *use_callchain, int *name_width, char *err, size_t errlen)
{
	static const struct {
		uint32_t field;
		uint64_t sample;
		const char *name, *attr;
	} needs[] = {
		{ SCRIPT_FIELD_IP, PERF_SAMPLE_IP, "ip", "IP" },
		{ SCRIPT_FIELD_PID | SCRIPT_FIELD_TID, PERF_SAMPLE_TID, "tid", "TID" },
		{ SCRIPT_FIELD_TIME, PERF_SAMPLE_TIME, "time", "TIME" },
		{ SCRIPT_FIELD_CPU, PERF_SAMPLE_CPU, "cpu", "CPU" },
		{ SCRIPT_FIELD_PERIOD, PERF_SAMPLE_PERIOD, "period", "PERIOD" },
	};
	bool first_seen[SCRIPT_KINDS] = { false };

	for (unsigned int e = 0; e < in->nr_events; e++) {
		const struct perf_input_event *ev = &in->events[e];
		enum script_kind k = script_kind_of(ev);
		int len = (int)strlen(script_event_name(ev));

		if (len > *name_width)
			*name_width = len;
		*use_callchain |= script_has_callchain(ev);
		if (first_seen[k])
			continue;
		first_seen[k] = true;
		for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++) {
			if (!(f->fields[k] & needs[i].field) ||
			    (ev->attr.sample_type & needs[i].sample))
				continue;
			if (f->user_set[k]) {
				rt_format(err, errlen,
					  "samples of %s do not have %s: cannot print the '%s' field",
					  script_event_name(ev), needs[i].attr, needs[i].name);
				return -EINVAL;
			}
			f->fields[k] &= ~needs[i].field;
		}
	}
	if (no_callchain)
		*use_callchain = false;
	if (*use_callchain && !f->user_set[SCRIPT_KIND_TRACEPOINT]) {
		for (unsigned int e = 0; e < in->nr_events; e++) {
			const struct perf_input_event *ev = &in->events[e];

			if (script_kind_of(ev) == SCRIPT_KIND_TRACEPOINT && script_has_callchain(ev)) {
				f->fields[SCRIPT_KIND_TRACEPOINT] |=
					SCRIPT_FIELD_IP | SCRIPT_FIELD_SYM | SCRIPT_FIELD_SYMOFF |
					SCRIPT_FIELD_DSO;
				break;
			}
		}
	}
	return 0;
}
