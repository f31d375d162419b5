/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_ids.c: the processes /proc lists, or the threads of one process
 * (/proc/PID/task), one id at a time; the process a thread is of. */
#include "sys/proc_ids.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/safe_open.h"

/* The id an entry's name is, or 0: "self", "net", a name with other than
 * digits, or one too large. */
static uint32_t id_of(const char *name)
{
	char *end;
	unsigned long id;

	if (*name < '1' || *name > '9')
		return 0;
	errno = 0;
	id = strtoul(name, &end, 10);
	return *end || errno || id > UINT32_MAX ? 0 : (uint32_t)id;
}

int proc_each_id(uint32_t pid, int (*each)(uint32_t id, void *arg), void *arg)
{
	char path[64];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task", pid);
	else
		snprintf(path, sizeof(path), "/proc");
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		uint32_t id = id_of(de->d_name);

		if (id)
			ret = each(id, arg);
	}
	closedir(d);
	return ret;
}

int proc_tgid_of(uint32_t tid, uint32_t *tgid)
{
	char path[64], text[512];
	const char *at;
	unsigned long v;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", tid);
	/* Name (escaped by the kernel: no newline), Umask, State, Tgid */
	n = safe_read_file(AT_FDCWD, path, text, sizeof(text));
	if (n <= 0)
		return n ? (int)n : -ESRCH;
	at = strstr(text, "\nTgid:");
	if (!at || sscanf(at + 6, "%lu", &v) != 1 || !v || v > UINT32_MAX)
		return -EINVAL;
	*tgid = (uint32_t)v;
	return 0;
}
