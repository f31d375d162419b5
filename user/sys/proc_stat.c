/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_stat.c: one process's /proc/PID/stat line, the kernel's, its fields
 * read after the comm's last ')'. */
#include "sys/proc_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int proc_stat_read(uint32_t id, struct proc_stat *st)
{
	char path[64], line[1024];
	const char *after;
	ssize_t n;
	int fd;

	if (id)
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", id);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0) {
		errno = n ? errno : ESRCH;
		return -errno;
	}
	line[n] = '\0';
	after = strrchr(line, ')');
	memset(st, 0, sizeof(*st));
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime vsize rss */
	if (!after || sscanf(after + 1,
			     " %c %" SCNu32 " %*d %*d %*d %*d %*u %*u %*u %*u %*u %" SCNu64 " %" SCNu64
			     " %*d %*d %*d %*d %*d %*d %" SCNu64 " %" SCNu64 " %" SCNd64,
			     &st->state, &st->ppid, &st->utime, &st->stime, &st->start_ticks,
			     &st->vsize, &st->rss) != 7) {
		errno = EINVAL;
		return -EINVAL;
	}
	return 0;
}
