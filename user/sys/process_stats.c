/* SPDX-License-Identifier: GPL-2.0-only */
/* process_stats.c: this process's own CPU time, memory, descriptors and start
 * time, read from /proc as the Prometheus client libraries read them. */
#include "sys/process_stats.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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

int process_stats_read(struct process_stats *s)
{
	unsigned long long utime, stime, start, vsize;
	long long rss;
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char text[1024], *p;
	uint64_t btime = boot_time();
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	/* after "(comm)", which may hold anything: state ppid pgrp session
	 * tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
	 * cstime priority nice num_threads itrealvalue starttime vsize rss */
	p = strrchr(text, ')');
	if (!p || !btime || tick <= 0 ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
			  "%*d %*d %llu %llu %lld",
		   &utime, &stime, &start, &vsize, &rss) != 5)
		return -1;
	s->cpu_ns = (uint64_t)(utime + stime) * 1000000000u / (uint64_t)tick;
	s->virtual_bytes = vsize;
	s->resident_bytes = rss > 0 ? (uint64_t)rss * (uint64_t)page : 0;
	s->start_time_ms = btime * 1000 + (uint64_t)start * 1000 / (uint64_t)tick;
	s->open_fds = process_open_fds();
	s->max_fds = limit(RLIMIT_NOFILE);
	s->max_virtual_bytes = limit(RLIMIT_AS);
	return 0;
}
