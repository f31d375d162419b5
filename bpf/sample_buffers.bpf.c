/* SPDX-License-Identifier: GPL-2.0-only */
/* sample_buffers.bpf.c: the sampler's settings and the maps samples are built
 * in, counted in and written to, defined once for the sampler's programs. */
#include "sample_buffers.bpf.h"

const volatile bool capture_callchain = false;
const volatile bool capture_user_stack = false;
const volatile __u32 stack_user_size = RT_STACK_USER_DEFAULT;
const volatile __u32 stack_copy_budget = 0;
const volatile bool capture_cgroup = false;
const volatile bool single_ring = false;
const volatile bool use_perfbuf = false;
const volatile __u64 wakeup_bytes = 64 * 1024;
const volatile bool use_own_ring = false;
const volatile __u64 ring_data_bytes = RT_RING_MIN_DATA;
const volatile __u64 ring_slack_bytes = 0;
const volatile bool ring_backward = false;
const volatile bool ring_plain_claim = false;
const volatile __s32 only_tracepoint_event = -1;
const volatile __s32 only_perf_event = -1;
__u64 task_regs_offset;

struct cpu_rings_map cpu_rings SEC(".maps");
struct perf_rings_map perf_rings SEC(".maps");
struct own_rings_map own_rings SEC(".maps");
struct ring_wakeups_map ring_wakeups SEC(".maps");
struct events_map events SEC(".maps");
struct hits_map hits SEC(".maps");
struct scratch_map scratch SEC(".maps");
struct counters_map counters SEC(".maps");

/* own_rings_touch's loop: page i % pages of CPU i / pages's ring element
 * read and counted; stops past the last CPU's. */
static long touch_ring_page(__u32 i, void *touched)
{
	__u64 bytes = RT_RING_CONTROL_BYTES + ring_data_bytes + ring_slack_bytes;
	__u64 pages = (bytes + RT_RING_TOUCH_PAGE - 1) / RT_RING_TOUCH_PAGE;
	__u32 cpu = i / pages;
	__u64 off = (i % pages) * RT_RING_TOUCH_PAGE;
	__u8 *ring = bpf_map_lookup_elem(&own_rings, &cpu);

	if (!ring)
		return 1;
	if (off > bytes - 8) /* a last page of fewer than 8 bytes: its word */
		off = bytes - 8;
	(void)*(volatile __u64 *)(ring + off);
	(*(__u32 *)touched)++;
	return 0;
}

/*
 * --transport ring: run once by the loader (BPF_PROG_TEST_RUN) before the
 * samplers are attached. Reads a word of every page of every CPU's ring
 * through the kernel's mapping of it, and returns the pages read. On the
 * Firecracker VM of docs/stacks.md (Cost) the first access to a page through
 * the kernel's mapping costs ~8 us, which a write through the loader's mapping
 * of the same page before does not spare; the writer goes through a page
 * every 32 samples of a 7-frame -g stack, and paid that at each one for the
 * whole first pass through the ring (~250 ns a sample, averaged). Elsewhere
 * it is a page walk per page.
 */
SEC("syscall")
int own_rings_touch(void *ctx)
{
	__u32 touched = 0;

	bpf_loop(RT_RING_TOUCH_MAX_PAGES, touch_ring_page, &touched, 0);
	return touched;
}
