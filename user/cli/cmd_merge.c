/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_merge.c: "ringtrace merge DIR FILE": a recording directory written again
 * as one perf.data file. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "format/perf_data_reader.h"
#include "format/perf_data_single.h"
#include "lib/log.h"
#include "lib/options.h"

static int merge_option(void *ctx, int id, const char *arg)
{
	bool *force = ctx;

	(void)arg;
	switch ((enum merge_option_id)id) {
	case MERGE_OPT_FORCE:
		*force = true;
		break;
	}
	return OPTIONS_CONTINUE;
}

/* FILE, created 0600 and never through a symlink: exclusively, or with
 * --force over a regular file (replaced by its new contents); -1 with one
 * line said. */
static int create_output(const char *path, bool force)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;

	if (fd >= 0 || errno != EEXIST || !force) {
		if (fd < 0)
			rt_error("cannot create %s: %s%s", path, strerror(errno),
				 errno == EEXIST ? " (--force replaces it)" : "");
		return fd;
	}
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || fchmod(fd, 0600) ||
	    ftruncate(fd, 0)) {
		rt_error("cannot replace %s: %s", path,
			 fd < 0 || errno ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int cmd_merge(int argc, char **argv)
{
	struct perf_data_single_totals totals;
	struct perf_input in;
	char err[PATH_MAX + 256];
	bool force = false;
	int status, next, fd, ret = 1;

	status = options_parse(&merge_command, argc, argv, merge_option, &force, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next + 2 != argc) {
		rt_error("merge needs a recording directory and the file to write: see ringtrace merge --help");
		return 2;
	}
	if (perf_input_open(&in, argv[next], err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	fd = create_output(argv[next + 1], force);
	if (fd < 0) {
		perf_input_close(&in);
		return 1;
	}
	if (perf_data_write_single(&in, fd, &totals, err, sizeof(err))) {
		rt_error("%s: %s", argv[next + 1], err);
		unlink(argv[next + 1]);
	} else {
		rt_info("ringtrace: wrote %s: %llu records, %.1f MiB", argv[next + 1],
			(unsigned long long)totals.records, (double)totals.bytes / (1 << 20));
		ret = 0;
	}
	if (close(fd) && !ret) {
		rt_error("%s: %s", argv[next + 1], strerror(errno));
		ret = 1;
	}
	perf_input_close(&in);
	return ret;
}
