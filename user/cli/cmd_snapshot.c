/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_snapshot.c: "ringtrace snapshot DIR|PID": asks a flight recording
 * (record --overwrite) for a snapshot, optionally waiting until it is written. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/options.h"
#include "record/flight_control.h"
#define WAIT_SECONDS SNAPSHOT_WAIT_SECONDS

/* One option of snapshot into the bool at ctx (--wait); an enum options_result. */
static int snapshot_option(void *ctx, int id, const char *arg)
{
	bool *wait = ctx;

	(void)arg;
	switch ((enum snapshot_option_id)id) {
	case SNAPSHOT_OPT_WAIT:
		*wait = true;
		break;
	}
	return OPTIONS_CONTINUE;
}

int cmd_snapshot(int argc, char **argv)
{
	struct flight_target t = { .dirfd = -1 };
	bool wait = false;
	const char *target;
	char err[PATH_MAX + 256];
	int status, next, ret = 1;

	status = options_parse(&snapshot_command, argc, argv, snapshot_option, &wait, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next + 1 != argc) {
		rt_error("snapshot needs one recording directory or pid: see ringtrace snapshot --help");
		return 2;
	}
	target = argv[next];
	if (target[0] && strspn(target, "0123456789") == strlen(target) && strlen(target) < 10
		    ? flight_target_from_pid(&t, (pid_t)atoi(target), err, sizeof(err))
		    : flight_target_from_dir(&t, target, err, sizeof(err))) {
		rt_error("%s", err);
		return 2;
	}
	if (flight_target_take_snapshot(&t, 0, wait ? WAIT_SECONDS * 1000 : 0, NULL, NULL, err,
					sizeof(err))) {
		rt_error("%s", err);
		goto out;
	}
	rt_info("ringtrace: snapshot %s from recording %d into %s", wait ? "written" : "requested",
		(int)t.pid, t.dir);
	ret = 0;
out:
	flight_target_close(&t);
	return ret;
}
