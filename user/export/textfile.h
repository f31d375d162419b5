/* SPDX-License-Identifier: GPL-2.0-only */
/* textfile.h: the metrics as a file for node_exporter's textfile collector,
 * DIR/ringtrace.prom, replaced whole through a temporary file in DIR that is
 * renamed over it, never written through a symlink. */
#ifndef RINGTRACE_TEXTFILE_H
#define RINGTRACE_TEXTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/byte_buffer.h"

#define TEXTFILE_NAME "ringtrace.prom"

struct textfile {
	int dirfd;
	const char *dir;
	bool written; /* by this process: only then is it removed */
};

/* Opens DIR, which must be a real directory (not a symlink). 0, or -errno with
 * err set. */
int textfile_open(struct textfile *t, const char *dir, char *err, size_t errlen);
/* Replaces DIR/ringtrace.prom with body (mode 0644: node_exporter runs as its
 * own user). 0, or -errno with err set. */
int textfile_write(struct textfile *t, const struct byte_buffer *body, char *err, size_t errlen);
/* Removes DIR/ringtrace.prom if this process wrote it (at exit: its metrics
 * would go stale; another exporter's file is left alone). */
void textfile_remove(struct textfile *t);
void textfile_close(struct textfile *t);

#endif
