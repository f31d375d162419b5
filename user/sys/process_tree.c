/* SPDX-License-Identifier: GPL-2.0-only */
/* process_tree.c: the machine's processes with their parents and start times,
 * from /proc/PID/stat. */
#include "sys/process_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/proc_stat.h"

bool process_exited(uint32_t id)
{
	struct proc_stat st;

	if (proc_stat_read(id, &st))
		return errno == ENOENT || errno == ESRCH;
	return st.state == 'Z' || st.state == 'X';
}

int process_start_ticks(uint32_t pid, uint64_t *ticks)
{
	struct proc_stat st;

	if (proc_stat_read(pid, &st))
		return -1;
	*ticks = st.start_ticks;
	return 0;
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
		struct proc_stat st;

		if (*end || !pid || pid > UINT32_MAX)
			continue;
		if (proc_stat_read((uint32_t)pid, &st))
			continue; /* ended meanwhile */
		node = (struct process_node){ (uint32_t)pid, st.ppid, st.start_ticks };
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
