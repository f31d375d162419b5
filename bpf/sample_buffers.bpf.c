/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_buffers.bpf.c: the sampler's settings and the maps samples are built
 * in, counted in and written to, defined once for the sampler's programs. */
#include "sample_buffers.bpf.h"

const volatile bool capture_callchain = false;
const volatile bool capture_user_stack = false;
const volatile __u32 stack_user_size = RT_STACK_USER_DEFAULT;
const volatile bool capture_cgroup = false;
const volatile bool single_ring = false;
const volatile bool use_perfbuf = false;
const volatile __u64 wakeup_bytes = 64 * 1024;
const volatile bool use_own_ring = false;
const volatile __u64 ring_data_bytes = RT_RING_MIN_DATA;
const volatile __u64 ring_slack_bytes = 0;
const volatile bool ring_backward = false;

struct cpu_rings_map cpu_rings SEC(".maps");
struct perf_rings_map perf_rings SEC(".maps");
struct own_rings_map own_rings SEC(".maps");
struct ring_wakeups_map ring_wakeups SEC(".maps");
struct events_map events SEC(".maps");
struct hits_map hits SEC(".maps");
struct scratch_map scratch SEC(".maps");
struct counters_map counters SEC(".maps");
