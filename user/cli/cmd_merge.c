/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_merge.c: "ringtrace merge DIR FILE": a recording directory written again
 * as one perf.data file. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "format/perf_data_reader.h"
#include "format/perf_data_single.h"
#include "lib/log.h"
#include "lib/options.h"
#include "sys/interrupt.h"
#include "sys/output_file.h"

int cmd_merge(int argc, char **argv)
{
	struct perf_data_single_totals totals;
	struct perf_input in;
	char err[PATH_MAX + 256];
	int status, next, fd, ret = 1;

	status = options_parse(&merge_command, argc, argv, NULL, NULL, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next + 2 != argc) {
		rt_error("merge needs a recording directory and the file to write: see ringtrace merge --help");
		return 2;
	}
	/* Ctrl-C while the recording is read: its reading stops, the file
	 * written so far is removed, one line says so */
	interrupt_catch();
	if (perf_input_open(&in, argv[next], err, sizeof(err))) {
		rt_error("%s", err);
		return 1;
	}
	fd = output_path_create(argv[next + 1], err, sizeof(err));
	if (fd < 0) {
		rt_error("%s", err);
		perf_input_close(&in);
		return 1;
	}
	status = perf_data_write_single(&in, fd, &totals, err, sizeof(err));
	if (interrupt_pending()) {
		interrupt_stopping();
		unlink(argv[next + 1]);
		close(fd);
		perf_input_close(&in);
		rt_error("merge of %s interrupted (%s): %s removed", argv[next], interrupt_name(),
			 argv[next + 1]);
		interrupt_end();
	}
	if (status) {
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
