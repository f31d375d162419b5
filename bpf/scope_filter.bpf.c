/* SPDX-License-Identifier: GPL-2.0-only */
/* scope_filter.bpf.c: the settings and maps of a recording's scope, defined
 * once for every object that tests it (the sampler's and the triggers'). */
#include "scope_filter.bpf.h"

const volatile __u32 filter_flags = 0;
const volatile bool cgroup_exact = false;
const volatile bool perf_events_per_thread = false;
const volatile __u64 target_cgroup_id = 0;

struct cpu_filter_map cpu_filter SEC(".maps");
struct target_tgids_map target_tgids SEC(".maps");
struct target_tids_map target_tids SEC(".maps");
struct target_cgroup_map target_cgroup SEC(".maps");
