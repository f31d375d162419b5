/* SPDX-License-Identifier: GPL-2.0-only */
/* cpu_avoid.h: keeps the calling thread off one CPU of those it may run on:
 * the drain thread off the CPU whose ring it drains most, where it would take
 * its time from the program it records. The scheduler leaves a thread woken
 * on a busy CPU there when no CPU looks idle at that instant (the waker's CPU
 * is the busy one, the thread's last is too, and the kernel's search for an
 * idle CPU is cut short when the cache's CPUs are busy on average: SIS_UTIL),
 * and once there it stays: perf record's one thread keeps to an idle CPU by
 * where it started. */
#ifndef RINGTRACE_CPU_AVOID_H
#define RINGTRACE_CPU_AVOID_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

struct cpu_avoid {
	cpu_set_t allowed;   /* where the thread may run: its affinity at the start, or
			      * one given it since by another than cpu_avoid */
	cpu_set_t given;     /* the affinity cpu_avoid gave it last (or allowed) */
	int nr_allowed;      /* 0: nothing is done (see cpu_avoid_init); 1: nowhere to go */
	int avoided;         /* -1: none */
	uint64_t next_ns;    /* no other move before (monotonic) */
	uint64_t moves;      /* made */
	/* while it keeps off one: when it last looked how long it waited to
	 * run, and that wait then (-1: unknown) */
	uint64_t check_ns;
	int64_t delay_at_check;
	uint64_t starved;    /* times it gave the CPU back, waiting to run */
	uint64_t backoff_ns; /* how long it keeps off none after the next time */
};

/* The least time between two moves. */
#define CPU_AVOID_INTERVAL_NS 50000000ull
/* How often the thread looks how long it waited to run while it keeps off a
 * CPU; the share of that time waiting that gives the CPU back (a real-time
 * task on the CPUs it keeps to leaves it 5%: it waits 95%; sharing a CPU
 * with nine busy tasks of its own kind, 90%); and how long it keeps off none
 * after: the first time, doubled each time after, up to the most. */
#define CPU_AVOID_CHECK_NS 100000000ull
#define CPU_AVOID_STARVED_PERCENT 90
#define CPU_AVOID_BACKOFF_NS 10000000000ull
#define CPU_AVOID_BACKOFF_MAX_NS 640000000000ull

/* Reads the calling thread's affinity: where it may run (the CPUs online
 * then: one brought online later is not added, one taken offline reads as an
 * affinity given from outside). Nothing is done
 * after where a thread kept off a CPU might never run again: a kernel before
 * 6.12 (no fair server) with real-time throttling off
 * (kernel.sched_rt_runtime_us -1), where a real-time task on the CPUs it
 * keeps to would hold it for good, and SIGINT with it; and on a machine of
 * more CPUs than a cpu_set_t holds (1024). */
void cpu_avoid_init(struct cpu_avoid *a);

/* The calling thread, running on cpu (sched_getcpu) at now_ns, moves off it
 * to the others it may run on (its affinity all of them but cpu), unless it
 * keeps off cpu already, it may run on one CPU alone, or it moved less than
 * CPU_AVOID_INTERVAL_NS ago: whether it moved. An affinity another gave the
 * thread since (taskset -p) is taken as where it may run, never widened. */
bool cpu_avoid(struct cpu_avoid *a, int cpu, uint64_t now_ns);

/* While the thread keeps off a CPU, every CPU_AVOID_CHECK_NS: whether it
 * waited to run (runnable, not running: the kernel's run_delay) more than
 * CPU_AVOID_STARVED_PERCENT of the time since it last looked, the CPUs it
 * keeps to held by a real-time task (the kernel leaves others 5% of them):
 * then it may run on all of them again (cpu_avoid_end) and keeps off none for
 * CPU_AVOID_BACKOFF_NS, twice that the next time, and so on up to
 * CPU_AVOID_BACKOFF_MAX_NS (where such a task stays, ~1 s of every 10 s
 * waiting, then of 20 s, ...). Nothing where the kernel keeps no such time
 * (no /proc/thread-self/schedstat). */
bool cpu_avoid_starved(struct cpu_avoid *a, uint64_t now_ns);

/* The thread may run where it may (allowed) again: the affinity it was given
 * last by cpu_avoid, if it still has it, becomes allowed; one another gave
 * it since is kept, and becomes allowed. */
void cpu_avoid_end(struct cpu_avoid *a);

#endif
