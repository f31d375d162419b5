/* SPDX-License-Identifier: GPL-2.0-only */
/* recording_inputs.h: what report and script read as one recording: the
 * outputs named, or the outputs a rotation left under the base name given. */
#ifndef RINGTRACE_RECORDING_INPUTS_H
#define RINGTRACE_RECORDING_INPUTS_H

#include <stddef.h>

struct recording_inputs {
	const char **paths; /* oldest first */
	unsigned int nr;
	char **found;       /* a base name's outputs (owned), or NULL */
};

/* The nr_args names given (a command's arguments; none: fallback): each a
 * recording; or, one name that does not exist, the outputs
 * DIR.YYYYmmddHHMMSSCC that --switch-output left under it. 0, or -errno
 * with one line in err. */
int recording_inputs_resolve(struct recording_inputs *in, char *const *args, int nr_args,
			     const char *fallback, char *err, size_t errlen);
void recording_inputs_free(struct recording_inputs *in);

#endif
