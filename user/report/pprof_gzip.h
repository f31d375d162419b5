/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof_gzip.h: an encoded pprof profile written gzipped. */
#ifndef RINGTRACE_PPROF_GZIP_H
#define RINGTRACE_PPROF_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Compresses the len bytes of data as gzip into out; 0, or -errno with err
 * set. */
int pprof_write_gzip(FILE *out, const uint8_t *data, size_t len, char *err, size_t errlen);

#endif
