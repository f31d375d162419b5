/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu_avoid.c: the calling thread kept off one CPU (see cpu_avoid.h). */
#include "sys/cpu_avoid.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "sys/safe_open.h"

/* Whether the kernel lets a fair task run beside real-time tasks that would
 * take all of a CPU: its fair server (Linux 6.12), or real-time throttling. */
static bool fair_tasks_run(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	char buf[32];
	long runtime;

	if (!uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
	    (major > 6 || (major == 6 && minor >= 12)))
		return true;
	return safe_read_file(AT_FDCWD, "/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)) > 0 &&
	       sscanf(buf, "%ld", &runtime) == 1 && runtime >= 0;
}

/* The time the calling thread has waited on a runqueue, in ns (schedstat's
 * second field), or -1. */
static int64_t run_delay_ns(void)
{
	unsigned long long run, delay;
	char buf[128];

	if (safe_read_file(AT_FDCWD, "/proc/thread-self/schedstat", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &run, &delay) != 2)
		return -1;
	return (int64_t)delay;
}

/* Takes the thread's affinity as where it may run. */
static void take_allowed(struct cpu_avoid *a, const cpu_set_t *now)
{
	a->allowed = *now;
	a->given = *now;
	a->nr_allowed = CPU_COUNT(now);
	a->avoided = -1;
}

void cpu_avoid_init(struct cpu_avoid *a)
{
	cpu_set_t now;

	memset(a, 0, sizeof(*a));
	a->avoided = -1;
	if (fair_tasks_run() && !sched_getaffinity(0, sizeof(now), &now))
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
	if (!CPU_EQUAL(&now, &a->given))
		take_allowed(a, &now);
	if (a->nr_allowed < 2 || cpu == a->avoided || !CPU_ISSET(cpu, &a->allowed))
		return false;
	others = a->allowed;
	CPU_CLR(cpu, &others);
	a->next_ns = now_ns + CPU_AVOID_INTERVAL_NS;
	if (sched_setaffinity(0, sizeof(others), &others))
		return false;
	a->given = others;
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
	if (delay < 0 || before < 0 || delay < before ||
	    (uint64_t)(delay - before) * 100 <= since * CPU_AVOID_STARVED_PERCENT)
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
	cpu_set_t now;

	if (a->avoided < 0)
		return;
	if (!sched_getaffinity(0, sizeof(now), &now) && !CPU_EQUAL(&now, &a->given))
		take_allowed(a, &now); /* another's, kept */
	else if (!sched_setaffinity(0, sizeof(a->allowed), &a->allowed))
		a->given = a->allowed;
	a->avoided = -1;
}
