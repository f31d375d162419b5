/* SPDX-License-Identifier: GPL-2.0-only */
/* report_stacks.c: report's folded stacks and flame graph: the unique stacks
 * the samples were added up into, sorted as stackcollapse sorts them and
 * printed, or drawn. */
#include "report/report_state.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "report/flamegraph.h"
#include "report/report_output.h"

static int compare_folded(const void *a, const void *b)
{
	const struct folded *x = *(const struct folded *const *)a, *y = *(const struct folded *const *)b;

	return strcmp(x->stack, y->stack);
}

/* The unique stacks, sorted as stackcollapse sorts them. */
static struct folded **sorted_stacks(struct report_state *st, size_t *nr)
{
	struct folded **stacks = (struct folded **)hash_map_values(&st->stacks);

	if (!stacks)
		return NULL;
	*nr = st->stacks.len;
	qsort(stacks, *nr, sizeof(*stacks), compare_folded);
	/* nanoseconds off CPU to microseconds, rounded */
	for (size_t i = 0; st->weigh_by_time && i < *nr; i++)
		stacks[i]->count = (stacks[i]->count + 500) / 1000;
	return stacks;
}

int report_print_stacks(struct report_state *st, FILE *out, char *err, size_t errlen)
{
	size_t nr = 0;
	struct folded **stacks = sorted_stacks(st, &nr);
	int ret = 0, r;

	if (!stacks) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
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
			return -ENOMEM;
		}
		for (size_t i = 0; i < nr; i++) {
			fs[i].stack = stacks[i]->stack;
			fs[i].count = stacks[i]->count;
		}
		snprintf(title, sizeof(title), "ringtrace: %s", st->o->input);
		if (!fo.title)
			fo.title = title;
		f = report_output_open(st->o->flamegraph_path, true, out, err, errlen);
		ret = f ? flamegraph_write(f, &fo, fs, nr, err, errlen) : errno ? -errno : -EIO;
		if (f && (r = report_output_close(f, out, st->o->flamegraph_path, close_err,
						  sizeof(close_err))) && !ret) {
			rt_format(err, errlen, "%s", close_err);
			ret = r;
		}
		free(fs);
	}
	free(stacks);
	return ret;
}
