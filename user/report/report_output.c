/* SPDX-License-Identifier: GPL-2.0-only */
/* report_output.c: the file a report writes on request (flame graph, pprof),
 * created or written over as perf writes its outputs, never through a
 * symlink nor into another's file; "-" is stdout. */
#include "report/report_output.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "sys/output_file.h"

FILE *report_output_open(const char *path, bool shareable, FILE *stdout_stream, char *err,
			 size_t errlen)
{
	FILE *out;
	int fd;

	if (!strcmp(path, "-"))
		return stdout_stream;
	fd = output_path_replace(path, shareable, err, errlen);
	if (fd < 0)
		return NULL;
	out = fdopen(fd, "w");
	if (!out) {
		close(fd);
		rt_format(err, errlen, "out of memory");
	}
	return out;
}

int report_output_close(FILE *f, FILE *stdout_stream, const char *path, char *err, size_t errlen)
{
	bool failed = ferror(f);

	if (f == stdout_stream)
		failed = fflush(f) || failed;
	else
		failed = fclose(f) || failed;
	if (failed) {
		rt_format(err, errlen, "cannot write %s: %s", strcmp(path, "-") ? path : "stdout",
			  errno ? strerror(errno) : "write error");
		return errno ? -errno : -EIO;
	}
	return 0;
}
