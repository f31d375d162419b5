/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_record.h: the layout of the records the BPF sampler writes, the event
 * descriptions and counters it shares with the loader; used by bpf/ and user/. */
#ifndef RINGTRACE_SAMPLE_RECORD_H
#define RINGTRACE_SAMPLE_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/perf_event.h> /* user space; the BPF side has vmlinux.h */
#include <linux/types.h>
#endif

/* Deepest kernel or user callchain captured, as perf's default
 * kernel.perf_event_max_stack. */
#define RT_MAX_STACK_DEPTH 127
/* Bytes of a tracepoint record copied into a sample: fewer than this (a
 * power of two, so the BPF side can bound sizes with a mask). */
#define RT_MAX_RAW 4096
/* Most events in one recording: the sampler's event table (an event's
 * number is the low byte of its samples' ids, RECORDING_MAX_EVENTS). */
#define RT_MAX_EVENTS 256
#define RT_MAX_DYNAMIC_FIELDS 4

/* A sample is a complete PERF_RECORD_SAMPLE with sample_type
 * IDENTIFIER | IP | TID | TIME | CPU | PERIOD [| CALLCHAIN] [| RAW]
 * [| REGS_USER | STACK_USER] [| CGROUP]:
 * this fixed head, then the callchain (u64 nr, PERF_CONTEXT_KERNEL, ips,
 * PERF_CONTEXT_USER, ips), the raw record (u32 size, bytes, zero padding to
 * 8), the user registers (u64 abi, then RT_REGS_USER_COUNT u64 in the bit
 * order of RT_REGS_USER_MASK when abi is not 0), the user stack (u64 size;
 * when not 0, size bytes copied from the user sp up, then u64 dyn_size, the
 * bytes of them actually read), and the cgroup id, which is then the
 * sample's last u64. The user registers and stack are those of
 * --call-graph dwarf and ehframe+dwarf, and of -g, whose samples copy a stack
 * only where a file's table is not loaded yet (abi 0 and size 0 elsewhere).
 * The one place the layout is named: the BPF side builds it, the loader
 * reads it. */
struct rt_sample_head {
	struct perf_event_header header; /* PERF_RECORD_SAMPLE, cpumode, size */
	__u64 id;                        /* PERF_SAMPLE_IDENTIFIER */
	__u64 ip;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu;
	/* perf's reserved half of the cpu word, ignored by perf: the low 32
	 * bits of the sample's per-CPU sequence number (rt_cpu_counters.produced
	 * once it is counted), which a flight-recorder snapshot accounts by */
	__u32 seq;
	__u64 period;
};

#define RT_SAMPLE_FIXED_WORDS (sizeof(struct rt_sample_head) / 8)
#define RT_CALLCHAIN_MAX_WORDS (1 + 2 * (1 + RT_MAX_STACK_DEPTH))
#define RT_RAW_MAX_WORDS ((4 + RT_MAX_RAW + 7) / 8)

/* --call-graph dwarf: the user registers perf samples on x86_64
 * (sample_regs_user, PERF_REGS_MASK: ax bx cx dx si di bp sp ip flags cs ss
 * r8-r15, in perf_event_x86_regs order) and the user stack bytes copied,
 * perf's default and its most (a multiple of 8). */
#define RT_REGS_USER_MASK 0xff0fffULL
#define RT_REGS_USER_COUNT 20
#define RT_REGS_ABI_64 2 /* PERF_SAMPLE_REGS_ABI_64 */
#define RT_STACK_USER_DEFAULT 8192
#define RT_STACK_USER_MAX 65528
#define RT_REGS_MAX_WORDS (1 + RT_REGS_USER_COUNT)

/* The most words before the stack copy, and the largest sample: a record's
 * size is a u16, and a perf ring's BPF-output record wraps the sample (a
 * header and a u32 more). */
#define RT_SAMPLE_BEFORE_STACK_WORDS \
	(RT_SAMPLE_FIXED_WORDS + RT_CALLCHAIN_MAX_WORDS + RT_RAW_MAX_WORDS + RT_REGS_MAX_WORDS + 1)
#define RT_SAMPLE_MAX_BYTES 65512
#define RT_SAMPLE_MAX_WORDS (RT_SAMPLE_MAX_BYTES / 8)

/* perf_event_header.misc cpumode values (uapi #defines, absent from BTF). */
#define RT_MISC_KERNEL 1
#define RT_MISC_USER 2

/* rt_event.flags */
#define RT_EVENT_TRACEPOINT 1u /* a tracepoint: copy its record as PERF_SAMPLE_RAW */
#define RT_EVENT_SYSCALL 2u    /* a syscalls: tracepoint: the sample is of the user regs */
#define RT_EVENT_UPROBE 4u     /* a uprobe: its record is a struct rt_probe_record */
#define RT_EVENT_URETPROBE 8u  /* a uretprobe: function, return address, return value */
#define RT_EVENT_USDT 16u      /* a USDT probe: its arguments, read by libbpf's usdt.bpf.h */
#define RT_EVENT_FILTERED 32u  /* a tracepoint with a --filter (event_filters) */

/* One event of the recording, indexed by the attach cookie of its perf events. */
struct rt_event {
	__u64 id;             /* written as PERF_SAMPLE_IDENTIFIER */
	__u64 period;         /* tracepoints: keep every period-th hit */
	__u32 flags;
	__u16 tp_type;        /* tracepoint id, written as common_type */
	__u16 fixed_size;     /* bytes of the tracepoint record before dynamic data */
	__u16 dynamic_offset[RT_MAX_DYNAMIC_FIELDS]; /* u32 (offset | len << 16) fields */
	__u8 nr_dynamic;
	__u8 dynamic_relative; /* bit i: field i is __rel_loc (offset from its end) */
	__u8 nr_args;          /* uprobes and USDT probes: argument words recorded */
	__u8 pad;
};

/* Arguments a uprobe records (x86-64's integer argument registers), and the
 * most a USDT probe has (libbpf's BPF_USDT_MAX_ARG_CNT). */
#define RT_UPROBE_ARGS 6
#define RT_PROBE_MAX_ARGS 12

/* The raw record (PERF_SAMPLE_RAW) of a user-space probe's sample, laid out
 * as the kernel's uprobe_events lays out its events (the format the
 * recording's tracing data declares for it): the common tracepoint header,
 * then __probe_ip (uprobes, USDT) or __probe_func and __probe_ret_ip
 * (uretprobes), then the argument words: arg1..argN, or the return value. */
struct rt_probe_record {
	__u16 common_type; /* the event's id in the recording's tracing data */
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
	__u64 word[2 + RT_PROBE_MAX_ARGS];
};
#define RT_PROBE_HEAD_WORDS 1     /* __probe_ip */
#define RT_RETPROBE_HEAD_WORDS 2  /* __probe_func, __probe_ret_ip */

/* Scope filters (the sampler's filter_flags). */
#define RT_FILTER_CPU 1u    /* only CPUs marked in cpu_filter */
#define RT_FILTER_TGID 2u   /* only processes in target_tgids */
/* target_tgids' values: the command, not yet exec'd (out of scope);
 * admitted; exited, in scope until its leader is freed. */
#define RT_TARGET_PENDING 0
#define RT_TARGET_ADMITTED 1
#define RT_TARGET_EXITED 2
#define RT_FILTER_TID 4u    /* only threads in target_tids */
#define RT_FILTER_CGROUP 8u /* only tasks in target_cgroup (and below, unless exact) */

/* PERF_RECORD_LOST_SAMPLES as the BPF side writes it into a ring buffer:
 * the count, then the sample_id trailer of sample_type TID | TIME | CPU |
 * IDENTIFIER. */
struct rt_lost_samples {
	struct perf_event_header header; /* PERF_RECORD_LOST_SAMPLES, 0, size */
	__u64 lost;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
	__u64 id;
};

#define RT_LOST_WORDS (sizeof(struct rt_lost_samples) / 8)

/* Per-CPU counters of the sampler, read by the loader at stop. */
struct rt_cpu_counters {
	__u64 produced;       /* samples the program tried to write */
	__u64 written;        /* samples committed to the ring */
	__u64 lost;           /* samples dropped because the ring was full */
	__u64 pending_lost;   /* ring buffer: dropped, no LOST record written yet */
	__u64 pending_time;   /* ...the time of the first of those */
	__u64 last_lost_time; /* time of the latest drop */
	__u64 follow_failed;  /* children not followed: target_tgids was full */
	__u64 unwoken_bytes;  /* written since the reader was last woken */
	__u64 filtered;       /* tracepoint hits --filter left out */
	__u64 filter_overrun; /* hits kept because their filter ran out of steps */
};

/* Per-CPU counters of the off-CPU program (--off-cpu), read by the loader at
 * stop. Its samples are counted and lost as every sample is (rt_cpu_counters). */
struct rt_offcpu_counters {
	__u64 slept;          /* tasks in scope that left the CPU to sleep, timed... */
	__u64 pending_full;   /* ...and not: the table of sleeping tasks was full */
	__u64 pending_failed; /* ...and not: no memory for the entry */
	__u64 short_blocks;   /* woke before --off-cpu-min: no sample */
	__u64 short_ns;       /* ...their nanoseconds off CPU */
	__u64 samples;        /* off-CPU samples produced */
	__u64 sample_ns;      /* ...their nanoseconds off CPU */
	__u64 stale;          /* entries of an exited task whose thread id came back */
	__u64 replaced;       /* a task slept again before it was seen to run (a switch
			       * the program missed): the earlier sleep is not sampled */
	__u64 unreadable;     /* an entry that could not be made a sample */
	__u64 other_cpu;      /* ran again on a CPU outside -C (no ring there): no sample */
};

#endif
