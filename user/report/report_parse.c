/* SPDX-License-Identifier: GPL-2.0-only */
/* report_parse.c: report's option values that need parsing: the sort keys
 * (--sort), the call graph (-g) and the time window (--time). */
#include <errno.h>
#include <stdbool.h>
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

/* Whether word is a prefix of name, as perf's -g words are matched. */
static bool abbreviates(const char *word, const char *name)
{
	return !strncmp(word, name, strlen(word));
}

enum graph_word { GRAPH_NONE, GRAPH_KEPT, GRAPH_CALLER, GRAPH_CALLEE, GRAPH_UNSUPPORTED };

/* -g's words in the order perf tries them (none, print types, orders, keys,
 * values): a prefix is the first word it starts; ringtrace prints perf's
 * defaults (graph, function, percent) only. */
static const struct {
	const char *word;
	enum graph_word kind;
} graph_words[] = {
	{ "none", GRAPH_NONE },          { "graph", GRAPH_KEPT },
	{ "flat", GRAPH_UNSUPPORTED },   { "fractal", GRAPH_UNSUPPORTED },
	{ "folded", GRAPH_UNSUPPORTED }, { "callee", GRAPH_CALLEE },
	{ "caller", GRAPH_CALLER },      { "function", GRAPH_KEPT },
	{ "address", GRAPH_UNSUPPORTED }, { "srcline", GRAPH_UNSUPPORTED },
	{ "branch", GRAPH_UNSUPPORTED }, { "percent", GRAPH_KEPT },
	{ "period", GRAPH_UNSUPPORTED }, { "count", GRAPH_UNSUPPORTED },
};

/* A number filling the whole word: 0 with *value set, else -EINVAL. */
static int whole_number(const char *word, bool integer, double *value)
{
	char *end;

	errno = 0;
	*value = integer ? (double)strtoul(word, &end, 0) : strtod(word, &end);
	return end == word || *end || errno || *value < 0 ? -EINVAL : 0;
}

int report_parse_call_graph(struct report_options *o, const char *text, char *err,
			    size_t errlen)
{
	const char *spec = text ? text : "graph,0.5,caller,function,percent";
	char *copy = strdup(spec), *rest = copy, *tok;
	bool threshold_set = false;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	o->graph.shown = true;
	while (!ret && (tok = strsep(&rest, ","))) {
		size_t i;
		double v;

		if (!*tok)
			continue; /* perf's strtok_r skips empty words */
		for (i = 0; i < sizeof(graph_words) / sizeof(graph_words[0]); i++)
			if (abbreviates(tok, graph_words[i].word))
				break;
		if (i < sizeof(graph_words) / sizeof(graph_words[0])) {
			switch (graph_words[i].kind) {
			case GRAPH_NONE:
				o->graph.shown = false;
				free(copy);
				return 0; /* perf reads no further */
			case GRAPH_CALLER:
			case GRAPH_CALLEE:
				o->graph.order = graph_words[i].kind == GRAPH_CALLER ? REPORT_GRAPH_CALLER
										     : REPORT_GRAPH_CALLEE;
				break;
			case GRAPH_KEPT:
				break;
			case GRAPH_UNSUPPORTED:
				rt_format(err, errlen, "-g %s: %s is perf's but not supported: ringtrace "
					  "report prints perf's graph of functions by percent (-g caller, "
					  "-g callee, or with a threshold and a limit: -g graph,0.5,10,caller)",
					  spec, graph_words[i].word);
				ret = -EINVAL;
				break;
			}
			continue;
		}
		if (!whole_number(tok, threshold_set, &v) && (threshold_set || v <= 100)) {
			if (threshold_set)
				o->graph.print_limit = v > 1e9 ? 1000000000u : (unsigned int)v;
			else
				o->graph.threshold = v;
			threshold_set = true;
			continue;
		}
		rt_format(err, errlen, "-g %s: \"%s\" is no call-graph order, threshold or limit: use "
			  "-g caller, -g callee or perf's -g graph,0.5,caller (a recording goes "
			  "before -g, or after -i)", spec, tok);
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}
