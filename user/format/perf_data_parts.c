/* SPDX-License-Identifier: GPL-2.0-only */
/* perf_data_parts.c: the outputs of one rotated recording read as one input,
 * and a rotation's base name found as the outputs it left. */
#include "format/perf_data_parts.h"

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/input_file.h"
#include "lib/log.h"

/* Whether a and b record the same events with the same ids. */
static bool same_events(const struct perf_input *a, const struct perf_input *b)
{
	if (a->nr_events != b->nr_events || a->nr_declared_ids != b->nr_declared_ids ||
	    a->sample_id_type != b->sample_id_type)
		return false;
	for (unsigned int e = 0; e < a->nr_events; e++) {
		const struct perf_event_attr *x = &a->events[e].attr, *y = &b->events[e].attr;

		if (x->type != y->type || x->config != y->config || x->sample_type != y->sample_type)
			return false;
	}
	return !a->nr_declared_ids ||
	       !memcmp(a->declared_ids, b->declared_ids, a->nr_declared_ids * sizeof(uint64_t));
}

int perf_input_add(struct perf_input *in, const char *path, char *err, size_t errlen)
{
	struct perf_input part;
	struct perf_input_file *grown;
	uint64_t headers = 0;
	int ret = perf_input_open_within(&part, path, in->whole_budget_left, err, errlen);

	if (ret)
		return ret;
	/* the parts' headers read whole (features) within one header's budget
	 * twice over, and their small files within one input's */
	for (unsigned int i = 0; i < in->nr_files; i++)
		headers += in->files[i].head_size + in->files[i].tail_size;
	headers += part.files[0].head_size + part.files[0].tail_size;
	if (headers > 2ull * PERF_INPUT_HEADER_BUDGET) {
		rt_format(err, errlen, "%s: the headers of the outputs read as one hold more than "
			  "%u MiB: name fewer of them", path, (2 * PERF_INPUT_HEADER_BUDGET) >> 20);
		perf_input_close(&part);
		return -E2BIG;
	}
	in->whole_budget_left = part.whole_budget_left;
	if (!same_events(in, &part)) {
		rt_format(err, errlen, "%s: not an output of the recording %s: its events or their "
			  "ids differ", path, in->path);
		perf_input_close(&part);
		return -EINVAL;
	}
	grown = realloc(in->files, (in->nr_files + part.nr_files) * sizeof(*grown));
	if (!grown) {
		rt_format(err, errlen, "out of memory");
		perf_input_close(&part);
		return -ENOMEM;
	}
	in->files = grown;
	/* the files change hands: part closes none of them */
	for (unsigned int i = 0; i < part.nr_files; i++) {
		grown[in->nr_files + i] = part.files[i];
		grown[in->nr_files + i].read_order += in->nr_files;
	}
	in->nr_files += part.nr_files;
	part.nr_files = 0;
	perf_input_close(&part);
	return 0;
}

/* Whether name ends in "." and 16 digits, and is the caller's: an entry
 * another user made beside the outputs (a shared /tmp) is not one of them. */
static bool timestamped(const char *name, size_t base_len)
{
	const char *t = name + base_len;
	struct stat st;

	if (strlen(t) != 17 || t[0] != '.')
		return false;
	for (int i = 1; i < 17; i++)
		if (t[i] < '0' || t[i] > '9')
			return false;
	return !lstat(name, &st) && st.st_uid == geteuid();
}

int perf_data_rotated_outputs(const char *path, char ***paths, char *err, size_t errlen)
{
	char pattern[4096];
	struct stat st;
	size_t len = strlen(path), n = 0, at = 0;
	glob_t g;
	int r;

	*paths = NULL;
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!lstat(path, &st) || errno != ENOENT || 2 * len + 24 > sizeof(pattern))
		return 0;
	/* path's own characters matched as they are (a backslash before each
	 * glob character), then its outputs' suffix */
	for (size_t i = 0; i < len; i++) {
		if (strchr("*?[]\\", path[i]))
			pattern[at++] = '\\';
		pattern[at++] = path[i];
	}
	snprintf(pattern + at, sizeof(pattern) - at, ".[0-9]*");
	r = glob(pattern, 0, NULL, &g);
	if (r)
		return r == GLOB_NOMATCH ? 0 : (rt_format(err, errlen, "out of memory"), -ENOMEM);
	for (size_t i = 0; i < g.gl_pathc; i++)
		n += timestamped(g.gl_pathv[i], len);
	if (n > PERF_DATA_MAX_PARTS) {
		rt_format(err, errlen, "%.*s: %zu outputs, over %d read as one: name some of them",
			  (int)len, path, n, PERF_DATA_MAX_PARTS);
		globfree(&g);
		return -E2BIG;
	}
	if (n && !(*paths = calloc(n, sizeof(**paths)))) {
		globfree(&g);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = 0;
	/* glob sorts: the timestamps (fixed width) oldest first */
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (!timestamped(g.gl_pathv[i], len))
			continue;
		if (!((*paths)[n++] = strdup(g.gl_pathv[i]))) {
			while (n)
				free((*paths)[--n]);
			free(*paths);
			*paths = NULL;
			globfree(&g);
			rt_format(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	globfree(&g);
	return (int)n;
}
