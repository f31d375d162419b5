/* SPDX-License-Identifier: GPL-2.0-only */
/* process_stats.c: this process's own CPU time, memory, descriptors (and
 * their limit, raised) and start time, read from /proc as the Prometheus
 * client libraries read them. */
#include "sys/process_stats.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys/proc_stat.h"

uint64_t process_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	uint64_t n = 0;
	struct dirent *ent;

	if (!d)
		return 0;
	while ((ent = readdir(d)))
		n += ent->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0; /* the directory's own descriptor */
}

uint64_t process_raise_fd_limit(uint64_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	if (rl.rlim_cur < want) {
		struct rlimit raised = rl;

		raised.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want
										     : rl.rlim_max;
		if (!setrlimit(RLIMIT_NOFILE, &raised))
			rl = raised;
	}
	return rl.rlim_cur;
}

/* The boot time in seconds since the epoch ("btime" of /proc/stat), or 0. */
static uint64_t boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[256];
	uint64_t btime = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %" SCNu64, &btime) == 1)
			break;
	fclose(f);
	return btime;
}

static uint64_t limit(int resource)
{
	struct rlimit rl;

	if (getrlimit(resource, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

int process_cpu_and_memory(uint32_t pid, uint64_t *cpu_ns, uint64_t *resident_bytes)
{
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct proc_stat st;
	int ret;

	if (!pid)
		return -ESRCH;
	if ((ret = proc_stat_read(pid, &st)))
		return ret;
	if (tick <= 0)
		return -EIO;
	*cpu_ns = (st.utime + st.stime) * 1000000000u / (uint64_t)tick;
	*resident_bytes = st.rss > 0 ? (uint64_t)st.rss * (uint64_t)page : 0;
	return 0;
}

int process_stats_read(struct process_stats *s)
{
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	uint64_t btime = boot_time();
	struct proc_stat st;
	int ret;

	memset(s, 0, sizeof(*s));
	if ((ret = proc_stat_read(0, &st)) || !btime || tick <= 0)
		return ret ? ret : -EIO;
	s->cpu_ns = (st.utime + st.stime) * 1000000000u / (uint64_t)tick;
	s->virtual_bytes = st.vsize;
	s->resident_bytes = st.rss > 0 ? (uint64_t)st.rss * (uint64_t)page : 0;
	s->start_time_ms = btime * 1000 + st.start_ticks * 1000 / (uint64_t)tick;
	s->open_fds = process_open_fds();
	s->max_fds = limit(RLIMIT_NOFILE);
	s->max_virtual_bytes = limit(RLIMIT_AS);
	return 0;
}
