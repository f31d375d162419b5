/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu_avoid.c: the calling thread kept off one CPU (see cpu_avoid.h). */
#include "sys/cpu_avoid.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The time the calling thread has waited on a runqueue, in ns (schedstat's
 * second field), or -1. */
static int64_t run_delay_ns(void)
{
	unsigned long long run, delay;
	char buf[128];
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%llu %llu", &run, &delay) == 2 ? (int64_t)delay : -1;
}

/* Takes the thread's affinity as where it may run. */
static void take_allowed(struct cpu_avoid *a, const cpu_set_t *now)
{
	a->allowed = *now;
	a->set = *now;
	a->nr_allowed = CPU_COUNT(now);
	a->avoided = -1;
}

void cpu_avoid_init(struct cpu_avoid *a)
{
	cpu_set_t now;

	memset(a, 0, sizeof(*a));
	a->avoided = -1;
	/* a machine of more CPUs than a cpu_set_t holds (1024) fails here:
	 * nothing is done there */
	if (!sched_getaffinity(0, sizeof(now), &now))
		take_allowed(a, &now);
}

bool cpu_avoid(struct cpu_avoid *a, int cpu, uint64_t now_ns)
{
	cpu_set_t now, others;

	if (!a->nr_allowed || cpu < 0 || cpu >= CPU_SETSIZE || now_ns < a->next_ns ||
	    sched_getaffinity(0, sizeof(now), &now))
		return false;
	/* an affinity someone else gave the thread since (taskset -p) is
	 * where it may run from now on */
	if (!CPU_EQUAL(&now, &a->set))
		take_allowed(a, &now);
	if (a->nr_allowed < 2 || cpu == a->avoided || !CPU_ISSET(cpu, &a->allowed))
		return false;
	others = a->allowed;
	CPU_CLR(cpu, &others);
	a->next_ns = now_ns + CPU_AVOID_INTERVAL_NS;
	if (sched_setaffinity(0, sizeof(others), &others))
		return false;
	a->set = others;
	a->avoided = cpu;
	a->moves++;
	a->check_ns = now_ns;
	a->delay_at_check = run_delay_ns();
	return true;
}

bool cpu_avoid_starved(struct cpu_avoid *a, uint64_t now_ns)
{
	int64_t delay, before = a->delay_at_check;
	uint64_t since = now_ns - a->check_ns;

	if (a->avoided < 0 || now_ns < a->check_ns + CPU_AVOID_CHECK_NS)
		return false;
	delay = run_delay_ns();
	a->check_ns = now_ns;
	a->delay_at_check = delay;
	if (delay < 0 || before < 0 || delay < before || (uint64_t)(delay - before) * 2 <= since)
		return false;
	cpu_avoid_end(a);
	if (!a->backoff_ns)
		a->backoff_ns = CPU_AVOID_BACKOFF_NS;
	a->next_ns = now_ns + a->backoff_ns;
	if (a->backoff_ns < CPU_AVOID_BACKOFF_MAX_NS)
		a->backoff_ns *= 2;
	a->starved++;
	return true;
}

void cpu_avoid_end(struct cpu_avoid *a)
{
	if (a->avoided < 0)
		return;
	sched_setaffinity(0, sizeof(a->allowed), &a->allowed);
	a->set = a->allowed;
	a->avoided = -1;
}
