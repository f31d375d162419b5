/* SPDX-License-Identifier: GPL-2.0-only */
/* trigger.h: the records the in-kernel snapshot triggers send to the loader;
 * shared by bpf/trigger.bpf.c and user/snapshot_trigger.c. */
#ifndef RINGTRACE_TRIGGER_H
#define RINGTRACE_TRIGGER_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum rt_trigger_kind {
	RT_TRIGGER_EVENT = 1,   /* the --trigger tracepoint was hit */
	RT_TRIGGER_RUNQLAT = 2, /* a task waited longer than --trigger-runqlat to run */
};

struct rt_trigger {
	__u64 time;  /* CLOCK_MONOTONIC ns, the recording's clock */
	__u64 value; /* RUNQLAT: the wait, ns */
	__u32 kind;
	__u32 pid;   /* the task that hit the tracepoint or waited */
	__u32 cpu;
	char comm[16];
};

#endif
