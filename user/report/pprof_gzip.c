/* SPDX-License-Identifier: GPL-2.0-only */
/* pprof_gzip.c: an encoded pprof profile written gzipped, as profile.proto's
 * readers take it, with zlib. */
#include "report/pprof_gzip.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "lib/log.h"

int pprof_write_gzip(FILE *out, const uint8_t *data, size_t len, char *err, size_t errlen)
{
	z_stream z = { 0 };
	uint8_t chunk[65536];
	int r;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16 /* gzip */, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		rt_format(err, errlen, "out of memory");
		return -ENOMEM;
	}
	z.next_in = (uint8_t *)data;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		r = deflate(&z, Z_FINISH);
		if (r == Z_STREAM_ERROR)
			break;
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out) {
			int e = errno ? errno : EIO;

			deflateEnd(&z);
			rt_format(err, errlen, "cannot write the profile: %s", strerror(errno));
			return -e;
		}
	} while (r != Z_STREAM_END);
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		rt_format(err, errlen, "cannot compress the profile");
		return -EIO;
	}
	return 0;
}
