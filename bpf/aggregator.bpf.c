/* SPDX-License-Identifier: GPL-2.0-only */
/* aggregator.bpf.c: aggregates in the kernel what ringtrace export serves: CPU
 * time of on-CPU samples per cgroup and per comm, and the run-queue latency
 * histogram; nothing is shipped to user space per sample. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "aggregator_maps.h"
#include "runq_wait.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool filter_cgroup = false; /* only tasks under cgroup_filter[0] */

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, RT_EXPORT_MAP_ENTRIES);
	__type(key, __u64); /* cgroup id */
	__type(value, struct rt_cpu_time);
} cgroup_time SEC(".maps");

/* The id of each cgroup the moment its first sample creates its key, for
 * user space to name it by its path while it still exists. Full: dropped,
 * the cgroup is then named at the next scrape. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RT_NEW_CGROUPS_RING_BYTES);
} new_cgroups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, RT_EXPORT_MAP_ENTRIES);
	__type(key, struct rt_comm_key);
	__type(value, struct rt_cpu_time);
} comm_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_runq_hist);
} runq_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_export_counters);
} counters SEC(".maps");

/* Adds one sample of period ns to key's entry in map (an LRU hash: a new key
 * may evict the least recently used one) and counts it in adds; false if the
 * kernel found no room even by evicting. A key created is announced in the
 * new_cgroups ring if announce. */
static __always_inline bool add_time(void *map, const void *key, __u64 period,
				     struct rt_map_adds *adds, bool announce)
{
	struct rt_cpu_time *t = bpf_map_lookup_elem(map, key), fresh = { 1, period };

	if (!t) {
		if (!bpf_map_update_elem(map, key, &fresh, BPF_NOEXIST)) {
			adds->inserts++;
			if (announce)
				bpf_ringbuf_output(&new_cgroups, (void *)key, sizeof(__u64), 0);
			goto added;
		}
		/* another CPU added it first */
		t = bpf_map_lookup_elem(map, key);
		if (!t)
			return false;
	}
	/* if the key is evicted meanwhile, this lands in a freed entry (or a
	 * new key's, if the kernel reused it at once): counted below either
	 * way, the totals still add up */
	__sync_fetch_and_add(&t->samples, 1);
	__sync_fetch_and_add(&t->ns, period);
added:
	adds->added.samples++;
	adds->added.ns += period;
	return true;
}

SEC("perf_event")
int export_sample(struct bpf_perf_event_data *ctx)
{
	__u32 zero = 0;
	struct rt_export_counters *cnt = bpf_map_lookup_elem(&counters, &zero);
	__u64 cgroup, period = ctx->sample_period;
	struct rt_comm_key comm = {};
	bool ok;

	if (!cnt)
		return 0;
	/* the idle task is not on-CPU work */
	if (!(bpf_get_current_pid_tgid() >> 32))
		return 0;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return 0;
	cnt->produced++;
	cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(comm.comm, sizeof(comm.comm));
	ok = add_time(&cgroup_time, &cgroup, period, &cnt->cgroup, true);
	ok &= add_time(&comm_time, &comm, period, &cnt->comm, false);
	if (!ok)
		cnt->lost++;
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(export_wakeup, struct task_struct *p)
{
	runq_queue(p->pid);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(export_wakeup_new, struct task_struct *p)
{
	runq_queue(p->pid);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(export_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u32 zero = 0, bucket = 0;
	__u64 waited = runq_switch(prev, next, bpf_ktime_get_ns());
	struct rt_runq_hist *h;

	/* system-wide: -G scopes the CPU time, not this histogram */
	if (!waited)
		return 0;
	h = bpf_map_lookup_elem(&runq_hist, &zero);
	if (!h)
		return 0;
	/* the first bucket whose bound 2^i ns is at least the wait */
	for (bucket = 0; bucket < RT_RUNQ_BUCKETS - 1; bucket++)
		if ((1ULL << bucket) >= waited)
			break;
	if (bucket < RT_RUNQ_BUCKETS)
		h->buckets[bucket]++;
	h->count++;
	h->sum_ns += waited;
	return 0;
}
