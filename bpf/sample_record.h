/* sample_record.h: the layout of the records the BPF sampler writes and of the
 * per-CPU counters it keeps; shared by bpf/ and user/ so both agree on it. */
#ifndef RINGTRACE_SAMPLE_RECORD_H
#define RINGTRACE_SAMPLE_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h> /* user space; the BPF side has vmlinux.h */
#endif

/* Deepest kernel or user callchain captured, as perf's default
 * kernel.perf_event_max_stack. */
#define RT_MAX_STACK_DEPTH 127

/* A sample is a complete PERF_RECORD_SAMPLE with
 * sample_type = IP | TID | TIME | CPU | PERIOD [| CALLCHAIN], built as u64 words:
 *   [0] perf_event_header  [1] ip  [2] pid,tid  [3] time  [4] cpu,res  [5] period
 *   [6] nr  [7..] PERF_CONTEXT_KERNEL, kernel ips, PERF_CONTEXT_USER, user ips   */
#define RT_SAMPLE_FIXED_WORDS 6
#define RT_SAMPLE_MAX_WORDS (RT_SAMPLE_FIXED_WORDS + 1 + 2 * (1 + RT_MAX_STACK_DEPTH))

/* perf_event_header.misc cpumode values (uapi #defines, absent from BTF). */
#define RT_MISC_KERNEL 1
#define RT_MISC_USER 2

/* Per-CPU counters of the sampler, read by the loader at stop. */
struct rt_cpu_counters {
	__u64 produced;        /* samples the program tried to write */
	__u64 written;         /* samples committed to the ring */
	__u64 lost;            /* samples dropped because the ring was full */
	__u64 lost_first_time; /* time of the first loss not yet reported, 0 if none */
};

#endif
