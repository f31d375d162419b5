/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd_snapshot.c: "ringtrace snapshot DIR|PID": asks a flight recording
 * (record --overwrite) for a snapshot, optionally waiting until it is written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/command_options.h"
#include "cli/commands.h"
#include "lib/log.h"
#include "lib/options.h"

#define PID_FILE "ringtrace.pid"
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

/* The pid in DIR/ringtrace.pid, read without following a symlink. */
static int read_pid_file(const char *dir, int dirfd, pid_t *pid)
{
	char text[32] = { 0 };
	struct stat st;
	ssize_t n;
	long v;
	char *end;
	int fd = openat(dirfd, PID_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		rt_error("%s/%s: %s: is a flight recording (record --overwrite) writing there?", dir,
			 PID_FILE, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rt_error("%s/%s is not a regular file", dir, PID_FILE);
		close(fd);
		return -1;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	v = n > 0 ? strtol(text, &end, 10) : 0;
	if (n <= 0 || v <= 0 || (*end && *end != '\n')) {
		rt_error("%s/%s does not hold a pid", dir, PID_FILE);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

/* Whether pid is a ringtrace process (so a stale pid is never signalled). */
static bool is_ringtrace(pid_t pid)
{
	char path[64], comm[32] = { 0 };
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "ringtrace\n");
}

/* Snapshot directories in DIR that are complete (their accounting written
 * last). */
static int count_snapshots(int dirfd)
{
	DIR *d = fdopendir(dup(dirfd));
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	rewinddir(d); /* the duplicate shares the offset of the last listing */
	while ((de = readdir(d))) {
		char path[300];
		struct stat st;

		if (strncmp(de->d_name, "snapshot-", 9))
			continue;
		snprintf(path, sizeof(path), "%s/accounting", de->d_name);
		if (!fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW))
			n++;
	}
	closedir(d);
	return n;
}

int cmd_snapshot(int argc, char **argv)
{
	bool wait = false;
	const char *target;
	int status, next, dirfd = -1, before = 0, ret = 1;
	pid_t pid;

	status = options_parse(&snapshot_command, argc, argv, snapshot_option, &wait, &next);
	if (status != OPTIONS_CONTINUE)
		return options_exit_status(status);
	if (next + 1 != argc) {
		rt_error("snapshot needs one recording directory or pid: see ringtrace snapshot --help");
		return 2;
	}
	target = argv[next];
	if (target[0] && strspn(target, "0123456789") == strlen(target)) {
		pid = (pid_t)atol(target);
		if (wait) {
			rt_error("--wait needs the recording's directory, not its pid");
			return 2;
		}
	} else {
		dirfd = open(target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dirfd < 0) {
			rt_error("cannot open %s: %s", target, strerror(errno));
			return 1;
		}
		if (read_pid_file(target, dirfd, &pid))
			goto out;
		before = count_snapshots(dirfd);
	}
	if (!is_ringtrace(pid)) {
		rt_error("process %d is not a running ringtrace recording", (int)pid);
		goto out;
	}
	if (kill(pid, SIGUSR2)) {
		rt_error("cannot signal ringtrace %d: %s", (int)pid, strerror(errno));
		goto out;
	}
	if (wait) {
		struct timespec tick = { 0, 20 * 1000 * 1000 };
		int tries = WAIT_SECONDS * 50;

		while (count_snapshots(dirfd) <= before && tries-- > 0) {
			if (!is_ringtrace(pid)) {
				rt_error("ringtrace %d ended before writing the snapshot", (int)pid);
				goto out;
			}
			nanosleep(&tick, NULL);
		}
		if (tries < 0) {
			rt_error("no new snapshot in %s after %d s (is --max-snapshots reached?)", target,
				 WAIT_SECONDS);
			goto out;
		}
	}
	rt_info("ringtrace: snapshot %s from recording %d", wait ? "written" : "requested", (int)pid);
	ret = 0;
out:
	if (dirfd >= 0)
		close(dirfd);
	return ret;
}
