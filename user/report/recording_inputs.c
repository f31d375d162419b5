/* SPDX-License-Identifier: GPL-2.0-only */
/* recording_inputs.c: what report and script read as one recording: the
 * outputs named, or the outputs a rotation left under the base name given. */
#include "report/recording_inputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_data_parts.h"
#include "lib/log.h"

int recording_inputs_resolve(struct recording_inputs *in, char *const *args, int nr_args,
			     const char *fallback, char *err, size_t errlen)
{
	const char *const *names = nr_args > 0 ? (const char *const *)args : &fallback;
	unsigned int nr = nr_args > 0 ? (unsigned int)nr_args : 1;
	char **found = NULL;
	int n = 0;

	memset(in, 0, sizeof(*in));
	if (nr > PERF_DATA_MAX_PARTS) {
		rt_format(err, errlen, "%u recordings named, over %d read as one", nr,
			  PERF_DATA_MAX_PARTS);
		return -E2BIG;
	}
	if (nr == 1 && (n = perf_data_rotated_outputs(names[0], &found, err, errlen)) < 0)
		return n;
	in->paths = calloc(n > 0 ? (size_t)n : nr, sizeof(*in->paths));
	if (!in->paths) {
		for (int i = 0; i < n; i++)
			free(found[i]);
		free(found);
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	in->found = found;
	in->nr = n > 0 ? (unsigned int)n : nr;
	for (unsigned int i = 0; i < in->nr; i++)
		in->paths[i] = n > 0 ? found[i] : names[i];
	return 0;
}

void recording_inputs_free(struct recording_inputs *in)
{
	for (unsigned int i = 0; in->found && i < in->nr; i++)
		free(in->found[i]);
	free(in->found);
	free(in->paths);
	memset(in, 0, sizeof(*in));
}
