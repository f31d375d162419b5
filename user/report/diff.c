/* SPDX-License-Identifier: GPL-2.0-only */
/* diff.c: report --diff: the folded stacks of two recordings (or folded
 * files) side by side, normalised, as folded columns or a differential flame graph. */
#include "report/diff.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/perf_file.h"
#include "lib/hash_map.h"
#include "lib/log.h"
#include "report/flamegraph.h"
#include "report/report_output.h"

/* A stack of either side, and its samples in each. */
struct diff_stack {
	char *stack;
	uint64_t before, after;
};

struct diff {
	struct hash_map index; /* stack -> struct diff_stack */
	struct diff_stack **list;
	size_t nr, cap;
	uint64_t total_before, total_after;
};

/* Whether path is a recording (a directory, or a file that starts as
 * perf.data does) rather than a text file of folded stacks. */
static bool is_recording(const char *path)
{
	struct stat st;
	uint64_t magic = 0;
	FILE *f;

	if (stat(path, &st))
		return false; /* the folded reader names the error */
	if (S_ISDIR(st.st_mode))
		return true;
	f = fopen(path, "rb");
	if (!f)
		return false;
	if (fread(&magic, sizeof(magic), 1, f) != 1)
		magic = 0;
	fclose(f);
	return magic == PERF_FILE_MAGIC;
}

static int add(struct diff *d, const char *stack, size_t len, uint64_t count, bool after)
{
	struct diff_stack *s;
	char *key = strndup(stack, len);

	if (!key)
		return -ENOMEM;
	s = hash_map_get(&d->index, key);
	if (s) {
		free(key);
	} else {
		if (d->nr == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 256;
			struct diff_stack **grown = realloc(d->list, cap * sizeof(*grown));

			if (!grown) {
				free(key);
				return -ENOMEM;
			}
			d->list = grown;
			d->cap = cap;
		}
		s = calloc(1, sizeof(*s));
		if (!s || hash_map_put(&d->index, key, s)) {
			free(s);
			free(key);
			return -ENOMEM;
		}
		s->stack = key;
		d->list[d->nr++] = s;
	}
	if (after) {
		s->after += count;
		d->total_after += count;
	} else {
		s->before += count;
		d->total_before += count;
	}
	return 0;
}

/* Adds the "stack count" lines of text (named name in messages) to one side. */
static int add_folded(struct diff *d, const char *name, const char *text, bool after, char *err,
		      size_t errlen)
{
	unsigned long line_no = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n'), *space;
		size_t full = end ? (size_t)(end - line) : strlen(line), len = full;
		char *stop;
		uint64_t count;

		line_no++;
		if (len && line[len - 1] == '\r')
			len--;
		if (len) {
			space = memrchr(line, ' ', len);
			errno = 0;
			count = space ? strtoull(space + 1, &stop, 10) : 0;
			if (!space || space == line || stop != line + len || errno || space[1] == '-') {
				rt_format(err, errlen, "%s:%lu: not a folded stack line (\"frame;frame;... COUNT\"): give a recording or report --folded's output",
					  name, line_no);
				return REPORT_BAD_REQUEST;
			}
			if (add(d, line, (size_t)(space - line), count, after)) {
				rt_format(err, errlen, "out of memory");
				return -ENOMEM;
			}
		}
		line += full + (end ? 1 : 0);
	}
	return 0;
}

/* One side: a recording's folded stacks, or a folded file's. */
static int add_side(struct diff *d, const struct report_options *o, const char *path, bool after,
		    char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	if (is_recording(path)) {
		struct report_options side = *o;

		side.input = path;
		side.output = REPORT_FOLDED;
		side.diff_before = NULL;
		ret = report_run_to_memory(&side, &text, &len, err, errlen);
	} else {
		mem = fopen(path, "r");
		if (!mem) {
			rt_format(err, errlen, "cannot read %s: %s (give a recording or a file of folded stacks)",
				  path, strerror(errno));
			return REPORT_BAD_REQUEST;
		}
		ret = 0;
		{
			FILE *copy = open_memstream(&text, &len);
			char buf[65536];
			size_t n;

			if (!copy) {
				fclose(mem);
				rt_format(err, errlen, "out of memory");
				return -ENOMEM;
			}
			while ((n = fread(buf, 1, sizeof(buf), mem)) > 0)
				fwrite(buf, 1, n, copy);
			if (ferror(mem)) {
				rt_format(err, errlen, "cannot read %s: %s", path, strerror(errno));
				ret = errno ? -errno : -EIO;
			}
			fclose(mem);
			fclose(copy);
		}
	}
	if (!ret)
		ret = add_folded(d, path, text ? text : "", after, err, errlen);
	free(text);
	return ret;
}

static int compare_stacks(const void *a, const void *b)
{
	return strcmp((*(struct diff_stack *const *)a)->stack, (*(struct diff_stack *const *)b)->stack);
}

static int write_flamegraph(const struct diff *d, const struct report_options *o, FILE *out,
			    char *err, size_t errlen)
{
	struct flamegraph_stack *fs = calloc(d->nr ? d->nr : 1, sizeof(*fs));
	struct flamegraph_options fo = { .title = o->title, .width = o->width,
					 .inverted = o->inverted, .differential = true };
	char title[1024], close_err[512];
	FILE *f;
	int ret, r;

	if (!fs) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nr; i++) {
		fs[i].stack = d->list[i]->stack;
		fs[i].count = d->list[i]->after;
		fs[i].before = d->list[i]->before;
	}
	snprintf(title, sizeof(title), "ringtrace: %s -> %s", o->diff_before, o->input);
	if (!fo.title)
		fo.title = title;
	f = report_output_open(o->flamegraph_path, true, out, err, errlen);
	ret = f ? flamegraph_write(f, &fo, fs, d->nr, err, errlen) : errno ? -errno : -EIO;
	if (f && (r = report_output_close(f, out, o->flamegraph_path, close_err,
					  sizeof(close_err))) && !ret) {
		rt_format(err, errlen, "%s", close_err);
		ret = r;
	}
	free(fs);
	return ret;
}

int report_diff_run(const struct report_options *o, FILE *out, char *err, size_t errlen)
{
	struct diff d = { 0 };
	int ret;

	if (o->output != REPORT_FOLDED && o->output != REPORT_FLAMEGRAPH) {
		rt_format(err, errlen, "--diff writes --folded or --flamegraph FILE: add one of them");
		return REPORT_BAD_REQUEST;
	}
	hash_map_init(&d.index, hash_string, equal_string);
	ret = add_side(&d, o, o->diff_before, false, err, errlen);
	if (!ret)
		ret = add_side(&d, o, o->input, true, err, errlen);
	if (ret)
		goto out;
	/* difffolded.pl -n: before scaled to after's total (kept as it is when
	 * after has none) */
	if (d.total_before && d.total_after && d.total_before != d.total_after)
		for (size_t i = 0; i < d.nr; i++)
			d.list[i]->before = (uint64_t)((double)d.list[i]->before *
						       (double)d.total_after / (double)d.total_before);
	if (d.nr)
		qsort(d.list, d.nr, sizeof(*d.list), compare_stacks);
	if (o->output == REPORT_FOLDED) {
		for (size_t i = 0; i < d.nr; i++)
			fprintf(out, "%s %" PRIu64 " %" PRIu64 "\n", d.list[i]->stack, d.list[i]->before,
				d.list[i]->after);
	} else {
		ret = write_flamegraph(&d, o, out, err, errlen);
	}
out:
	for (size_t i = 0; i < d.nr; i++) {
		free(d.list[i]->stack);
		free(d.list[i]);
	}
	free(d.list);
	hash_map_free(&d.index);
	return ret;
}
