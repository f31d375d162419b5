/* SPDX-License-Identifier: GPL-2.0-only */
/* process_tree.c: the machine's processes with their parents and start times,
 * from /proc/PID/stat (the kernel's files: a process names only its comm, and
 * the fields are read after the comm's last ')'). */
#include "sys/process_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fields after the comm in the stat line of id (0: this process), in
 * line; NULL with errno set if it cannot be read. */
static const char *stat_fields(uint32_t id, char *line, size_t size)
{
	char path[64], *after;
	ssize_t n;
	int fd;

	if (id)
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/stat", id);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, line, size - 1);
	close(fd);
	if (n <= 0) {
		errno = n ? errno : ESRCH;
		return NULL;
	}
	line[n] = '\0';
	after = strrchr(line, ')');
	if (!after || !after[1]) {
		errno = EINVAL;
		return NULL;
	}
	return after + 1;
}

/* Parent and start time of pid (0: this process) from its stat line. */
static int read_stat(uint32_t pid, uint32_t *ppid, uint64_t *start)
{
	char line[1024];
	const char *fields = stat_fields(pid, line, sizeof(line));
	unsigned int parent;
	uint64_t ticks;

	if (!fields)
		return -1;
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	 * cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime */
	if (sscanf(fields, " %*c %u %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			   "%*d %*d %*d %*d %" SCNu64, &parent, &ticks) != 2) {
		errno = EINVAL;
		return -1;
	}
	*ppid = parent;
	*start = ticks;
	return 0;
}

bool process_exited(uint32_t id)
{
	char line[1024];
	const char *fields = stat_fields(id, line, sizeof(line));

	if (!fields)
		return errno == ENOENT || errno == ESRCH;
	return fields[1] == 'Z' || fields[1] == 'X';
}

int process_start_ticks(uint32_t pid, uint64_t *ticks)
{
	uint32_t ppid;

	return read_stat(pid, &ppid, ticks);
}

int process_tree_read(struct process_node **nodes, size_t *nr)
{
	DIR *proc = opendir("/proc");
	struct process_node *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	if (!proc)
		return -1;
	while ((de = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		struct process_node node;

		if (*end || !pid || pid > UINT32_MAX)
			continue;
		node.pid = (uint32_t)pid;
		if (read_stat(node.pid, &node.ppid, &node.start_ticks))
			continue; /* ended meanwhile */
		if (n == cap) {
			size_t grown_cap = cap ? cap * 2 : 256;
			struct process_node *grown = realloc(all, grown_cap * sizeof(*grown));

			if (!grown) {
				free(all);
				closedir(proc);
				errno = ENOMEM;
				return -1;
			}
			all = grown;
			cap = grown_cap;
		}
		all[n++] = node;
	}
	closedir(proc);
	*nodes = all;
	*nr = n;
	return 0;
}
