/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_ns.c: a process's namespaces, each as the (device, inode) of its
 * /proc/PID/ns link (nsfs: stat follows the link to the namespace itself, as
 * perf's synthesized NAMESPACES records read them). */
#include "sys/proc_ns.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int ns_link(uint32_t pid, const char *name, struct perf_ns_link_info *out)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/ns/%s", pid, name);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if (stat(path, &st))
		return -errno;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	return 0;
}

int proc_mnt_ns(uint32_t pid, uint64_t *ino)
{
	struct perf_ns_link_info mnt;
	int r = ns_link(pid, "mnt", &mnt);

	*ino = r ? 0 : mnt.ino;
	return r;
}

int proc_namespaces(uint32_t pid, struct perf_ns_link_info ns[NR_NAMESPACES])
{
	static const char *const names[NR_NAMESPACES] = {
		[NET_NS_INDEX] = "net",   [UTS_NS_INDEX] = "uts",
		[IPC_NS_INDEX] = "ipc",   [PID_NS_INDEX] = "pid",
		[USER_NS_INDEX] = "user", [MNT_NS_INDEX] = "mnt",
		[CGROUP_NS_INDEX] = "cgroup",
	};

	memset(ns, 0, NR_NAMESPACES * sizeof(ns[0]));
	for (int i = 0; i < NR_NAMESPACES; i++) {
		int r = ns_link(pid, names[i], &ns[i]);

		if (r && i == MNT_NS_INDEX)
			return r;
	}
	return 0;
}
