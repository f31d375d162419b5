/* SPDX-License-Identifier: GPL-2.0-only */
/* report_parse.c: report's option values that need parsing: the sort keys
 * (--sort) and the time window (--time). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/report.h"
#include "report/sample_filter.h"

static const char *const key_names[] = {
	[REPORT_KEY_COMM] = "comm", [REPORT_KEY_PID] = "pid", [REPORT_KEY_TID] = "tid",
	[REPORT_KEY_DSO] = "dso",   [REPORT_KEY_SYM] = "sym", [REPORT_KEY_CPU] = "cpu",
	[REPORT_KEY_CGROUP] = "cgroup",
};

#define NR_KEY_NAMES (sizeof(key_names) / sizeof(key_names[0]))

int report_parse_sort(struct report_options *o, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *rest = copy, *tok;

	if (!copy)
		return -ENOMEM;
	o->nr_keys = 0;
	while ((tok = strsep(&rest, ","))) {
		size_t k;

		if (!*tok) {
			rt_format(err, errlen, "empty sort key in \"%s\": give keys between commas, e.g. comm,dso,sym",
				  text);
			free(copy);
			return -EINVAL;
		}
		for (k = 0; k < NR_KEY_NAMES; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == NR_KEY_NAMES) {
			rt_format(err, errlen, "unknown sort key \"%s\": use comm, pid, tid, dso, sym, cpu or cgroup",
				  tok);
			free(copy);
			return -EINVAL;
		}
		if (o->nr_keys == REPORT_MAX_KEYS) {
			rt_format(err, errlen, "too many sort keys in \"%s\"", text);
			free(copy);
			return -EINVAL;
		}
		o->keys[o->nr_keys++] = (enum report_key)k;
	}
	free(copy);
	if (!o->nr_keys) {
		rt_format(err, errlen, "empty sort key list");
		return -EINVAL;
	}
	return 0;
}

int report_parse_time(struct report_options *o, const char *text, char *err, size_t errlen)
{
	int r = sample_filter_parse_time(text, &o->time_start, &o->time_end, err, errlen);

	if (!r)
		o->time_filter = true;
	return r;
}
