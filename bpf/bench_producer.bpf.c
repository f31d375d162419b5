/* SPDX-License-Identifier: GPL-2.0-only */
/* bench_producer.bpf.c: writes sample-shaped records as fast as the kernel can
 * when run with BPF_PROG_TEST_RUN, into either transport, for the drain benchmark. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "sample_record.h"

const volatile bool use_perfbuf = false;
const volatile __u32 batch = 1024;
const volatile __u64 wakeup_bytes = 128 * 1024;

struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct cpu_ring);
} cpu_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} perf_rings SEC(".maps");

/* produced, lost: per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

#define BENCH_WORDS 12 /* a 96-byte sample: the fixed part and a short callchain */

struct loop_ctx {
	void *tp_ctx;
	void *ring;
	__u64 *produced;
	__u64 *lost;
	__u32 cpu;
};

static long write_one(__u32 i, void *arg)
{
	struct loop_ctx *c = arg;
	__u64 rec[BENCH_WORDS] = {
		PERF_RECORD_SAMPLE | (__u64)RT_MISC_USER << 32 | (__u64)sizeof(rec) << 48,
		1, 0x401000 + i, 1 | 1ULL << 32, bpf_ktime_get_ns(), c->cpu, 1, 4,
		PERF_CONTEXT_USER, 0x401000 + i, 0x402000, 0x403000,
	};

	(*c->produced)++;
	if (use_perfbuf) {
		if (bpf_perf_event_output(c->tp_ctx, &perf_rings, BPF_F_CURRENT_CPU, rec, sizeof(rec)))
			(*c->lost)++;
		return 0;
	}
	if (bpf_ringbuf_output(c->ring, rec, sizeof(rec),
			       bpf_ringbuf_query(c->ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ?
				       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP))
		(*c->lost)++;
	return 0;
}

SEC("raw_tp")
int produce(void *ctx)
{
	__u32 k_produced = 0, k_lost = 1;
	struct loop_ctx c = { .tp_ctx = ctx, .cpu = bpf_get_smp_processor_id() };

	c.produced = bpf_map_lookup_elem(&totals, &k_produced);
	c.lost = bpf_map_lookup_elem(&totals, &k_lost);
	if (!c.produced || !c.lost)
		return 0;
	if (!use_perfbuf) {
		c.ring = bpf_map_lookup_elem(&cpu_rings, &c.cpu);
		if (!c.ring)
			return 0;
	}
	bpf_loop(batch, write_one, &c, 0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
