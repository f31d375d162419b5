// SPDX-License-Identifier: GPL-2.0
/* sampler.bpf.c: on each perf event overflow, builds a PERF_RECORD_SAMPLE
 * (with optional kernel+user callchain) and writes it into this CPU's ring. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "sample_record.h"

/* Set by the loader before load. */
const volatile bool capture_callchain = false;
/* Wake the reader only once this many bytes wait in a ring (batched wakeups). */
const volatile __u64 wakeup_bytes = 64 * 1024;

struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024); /* resized by the loader */
};

/* One BPF ring buffer per CPU, indexed by CPU number. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* resized to the number of possible CPUs */
	__type(key, __u32);
	__array(values, struct cpu_ring);
} cpu_rings SEC(".maps");

struct sample_words {
	__u64 w[RT_SAMPLE_MAX_WORDS];
};

/* Scratch space to build one sample: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sample_words);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_cpu_counters);
} counters SEC(".maps");

static __always_inline bool sampled_in_user_mode(struct bpf_perf_event_data *ctx)
{
#if defined(__TARGET_ARCH_x86)
	/* The verifier allows only 8-byte loads of the regs, and cs is a u16 in
	 * newer kernels: load word 17 of x86-64's stable pt_regs layout (cs),
	 * whose low two bits are the privilege level the CPU was in. */
	const __u64 *words = (const __u64 *)&ctx->regs;

	return (words[17] & 3) != 0;
#else
#error "ringtrace's sampler only knows how to tell user mode on x86"
#endif
}

/* Appends "marker, frames..." at word n; returns the new word count. */
static __always_inline __u32 append_stack(struct bpf_perf_event_data *ctx,
					  struct sample_words *s, __u32 n,
					  __u64 marker, __u64 flags)
{
	long bytes;
	__u32 frames;

	if (n > RT_SAMPLE_MAX_WORDS - 1 - RT_MAX_STACK_DEPTH)
		return n;
	bytes = bpf_get_stack(ctx, &s->w[n + 1], RT_MAX_STACK_DEPTH * sizeof(__u64), flags);
	if (bytes <= 0)
		return n;
	frames = bytes / sizeof(__u64);
	if (frames > RT_MAX_STACK_DEPTH)
		frames = RT_MAX_STACK_DEPTH;
	s->w[n] = marker;
	return n + 1 + frames;
}

SEC("perf_event")
int sample_on_overflow(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct rt_cpu_counters *cnt = bpf_map_lookup_elem(&counters, &zero);
	struct sample_words *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	bool user = sampled_in_user_mode(ctx);
	struct bpf_dynptr rec;
	void *ring;
	__u32 n, size;
	__u64 now;

	if (!cnt || !s)
		return 0;
	now = bpf_ktime_get_ns();
	cnt->produced++;

	s->w[1] = PT_REGS_IP(&ctx->regs);
	s->w[2] = (pid_tgid >> 32) | (pid_tgid << 32); /* u32 pid, u32 tid */
	s->w[3] = now;
	s->w[4] = cpu;                                 /* u32 cpu, u32 res */
	s->w[5] = ctx->sample_period;
	n = RT_SAMPLE_FIXED_WORDS;
	if (capture_callchain) {
		__u32 nr_at = n++;

		if (!user)
			n = append_stack(ctx, s, n, PERF_CONTEXT_KERNEL, 0);
		if (pid_tgid >> 32)
			n = append_stack(ctx, s, n, PERF_CONTEXT_USER, BPF_F_USER_STACK);
		s->w[nr_at] = n - nr_at - 1;
	}
	if (n > RT_SAMPLE_MAX_WORDS)
		return 0;
	size = n * sizeof(__u64);
	/* perf_event_header: u32 type, u16 misc, u16 size */
	s->w[0] = PERF_RECORD_SAMPLE |
		  (__u64)(user ? RT_MISC_USER : RT_MISC_KERNEL) << 32 |
		  (__u64)size << 48;

	ring = bpf_map_lookup_elem(&cpu_rings, &cpu);
	if (!ring)
		return 0;
	if (bpf_ringbuf_reserve_dynptr(ring, size, 0, &rec)) {
		bpf_ringbuf_discard_dynptr(&rec, 0);
		if (!cnt->lost_first_time)
			cnt->lost_first_time = now;
		cnt->lost++;
		return 0;
	}
	bpf_dynptr_write(&rec, 0, s, size, 0);
	bpf_ringbuf_submit_dynptr(&rec, bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
					       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	cnt->written++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
