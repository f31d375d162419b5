/* SPDX-License-Identifier: GPL-2.0-only */
/* offcpu_totals.c: the line record --off-cpu adds to the totals: blocks timed and
 * sampled, those too short, and every one not timed, by reason. */
#include "record/offcpu_totals.h"

#include <inttypes.h>

#include "lib/log.h"

void offcpu_print_totals(const struct bpf_sampler *s, uint64_t min_ns, bool verbose)
{
	struct rt_offcpu_counters c;
	uint64_t asleep;

	if (bpf_sampler_offcpu_counters(s, &c, &asleep))
		return;
	/* the detail with -v; without, only when sleeps went untimed for
	 * want of room or memory */
	if (!verbose && !c.pending_full && !c.pending_failed)
		return;
	rt_info("ringtrace: off-CPU: %" PRIu64 " sleeps timed: %" PRIu64 " samples (%.3f s off CPU); %" PRIu64
		" blocks under --off-cpu-min %.3f ms (%.3f s), not sampled; %" PRIu64
		" tasks still asleep at the end; not timed: %" PRIu64
		" sleeps (table of sleeping tasks full), %" PRIu64 " (no memory), %" PRIu64
		" (thread id reused), %" PRIu64 " (slept again before seen to run), %" PRIu64
		" (unreadable), %" PRIu64 " (ran again outside -C)",
		(uint64_t)c.slept, (uint64_t)c.samples, (double)c.sample_ns / 1e9, (uint64_t)c.short_blocks, (double)min_ns / 1e6,
		(double)c.short_ns / 1e9, asleep, (uint64_t)c.pending_full, (uint64_t)c.pending_failed, (uint64_t)c.stale,
		(uint64_t)c.replaced, (uint64_t)c.unreadable, (uint64_t)c.other_cpu);
}
