/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_totals.c: the in-kernel unwinder's totals at the end of a recording:
 * its tables (files, rows, refusals by why), its stacks (how each one ended)
 * and its frames (how each one was found), each part adding up. */
#include <inttypes.h>
#include <stdio.h>

#include "lib/log.h"
#include "record/unwind_cache.h"
#include "record/unwind_tables.h"

/* " (N why, ...)" of the files refused a table, or "". */
static void refusals(const struct unwind_tables *t, char *out, size_t size)
{
	size_t used = 0;

	out[0] = 0;
	for (int why = UNWIND_BUILT + 1; why < UNWIND_NR_REFUSALS && used < size; why++)
		if (t->files_refused[why])
			used += (size_t)snprintf(out + used, size - used, "%s%" PRIu64 " %s",
						 used ? ", " : " (", t->files_refused[why],
						 unwind_refusal_name((enum unwind_refusal)why));
	if (used && used < size - 1)
		snprintf(out + used, size - used, ")");
}

/* ", N kept there, ..." of what the recording did to the cache, or "". */
static void cache_counts(const struct unwind_tables *t, char *out, size_t size)
{
	struct unwind_cache_counts c;

	out[0] = 0;
	if (!t->cache)
		return;
	unwind_cache_counts(t->cache, &c);
	rt_format(out, size,
		  ", %" PRIu64 " kept there, %" PRIu64 " evicted from it (%.1f MiB: least recently "
		  "used, for room within --unwind-cache-size), %" PRIu64
		  " not kept (over the cache's share for users' files), %" PRIu64
		  " not kept (no room)",
		  c.kept, c.evicted, (double)c.evicted_bytes / 1048576.0, c.over_share, c.no_room);
}

/* " --unwind-mem 64.0 MiB, ..." of what the map was given. */
static void sizing(const struct unwind_tables *t, char *out, size_t size)
{
	const struct unwind_machine_text *m = &t->machine;

	if (!m->processes) {
		rt_format(out, size, " --unwind-mem %.1f MiB", (double)t->mem / 1048576.0);
		return;
	}
	rt_format(out, size,
		  " --unwind-mem %.1f MiB, its default, sized from %.1f MiB of code in %" PRIu64
		  " files mapped by %" PRIu64 " processes at the start (%" PRIu64 " not readable%s)",
		  (double)t->mem / 1048576.0, (double)m->bytes / 1048576.0, m->files, m->processes,
		  m->unreadable, m->out_of_time ? "; /proc read in part, out of time" : "");
}

void unwind_tables_print_totals(const struct unwind_tables *t, const struct bpf_sampler *s,
				bool verbose, bool quiet)
{
	struct rt_unwind_counters c;
	char refused[256], staged[128], cached[320], sized[256];
	bool counted;

	if (!t->on)
		return;
	counted = !bpf_sampler_unwind_counters(s, &c);
	/* without -v, only the stacks the tables cost, in plain words; not
	 * with -q, which prints nothing unless records were lost (stacks cut
	 * short are not: -v counts them) */
	if (counted && !quiet)
		unwind_print_losses(t, &c);
	if (!verbose)
		return;
	refusals(t, refused, sizeof(refused));
	cache_counts(t, cached, sizeof(cached));
	sizing(t, sized, sizeof(sized));
	staged[0] = 0;
	if (t->first_stages)
		rt_format(staged, sizeof(staged),
			  ", %" PRIu64 " in two stages (%" PRIu64 " rows of first stages replaced)",
			  t->first_stages, t->first_stage_rows);
	rt_info("ringtrace: unwind tables: %" PRIu64 " files, %" PRIu64
		" rows loaded (%.1f MiB of %.1f in the map at the end), %" PRIu64 " evicted (%" PRIu64
		" rows: no process mapped them, room needed), built in %.3f s (%" PRIu64
		" read from the cache %s%s%s); %" PRIu64 " files without a table%s, %" PRIu64
		" without room (--unwind-mem), %" PRIu64 " searched without a page index (no room), %" PRIu64
		" mappings dropped, %" PRIu64 " files compiled again (changed since their table)",
		t->nr_files, t->rows,
		(double)unwind_maps_rows_taken(&t->maps) * UNWIND_ROW_KERNEL_BYTES / 1048576.0,
		(double)t->maps.capacity * UNWIND_ROW_KERNEL_BYTES / 1048576.0, t->files_evicted,
		t->rows_evicted, t->build_seconds,
		t->files_from_cache, t->cache_dir ? t->cache_dir : "(none)", cached, staged,
		t->files_without_table,
		refused, t->files_without_room, t->maps.without_index, t->mappings_dropped,
		t->files_changed);
	rt_info("ringtrace: unwind tables' memory:%s", sized);
	if (t->on_demand)
		rt_info("ringtrace: unwind tables on demand (--unwind-tables sampled): %" PRIu64
			" files mapped left uncompiled, %" PRIu64 " compiled once a walk met them, %"
			PRIu64 " met but gone (no longer mapped); %" PRIu64
			" files forgotten (no table, no process mapping them)",
			t->files_deferred, t->files_wanted, t->wanted_gone, t->files_pruned);
	if (!counted)
		return;
	rt_info("ringtrace: user stacks: %" PRIu64 " (%" PRIu64
		" by frame pointers alone: processes not known, no room), ending: %" PRIu64
		" outermost, %" PRIu64 " return address 0, %" PRIu64
		" return address past user space, %" PRIu64 " read failed, %" PRIu64
		" bad frame, %" PRIu64 " truncated, %" PRIu64 " in an exec (the old image's stack gone), %"
		PRIu64 " copied (a file's table not loaded yet: unwound when read)",
		(uint64_t)c.samples, (uint64_t)c.no_process, (uint64_t)c.outermost,
		(uint64_t)c.return_zero, (uint64_t)c.non_canonical, (uint64_t)c.read_failed,
		(uint64_t)c.bad_frame, (uint64_t)c.truncated, (uint64_t)c.in_exec,
		(uint64_t)c.stacks_copied);
	rt_info("ringtrace: user frames: %" PRIu64 " (%" PRIu64 " sampled registers, %" PRIu64
		" by .eh_frame, %" PRIu64 " by .debug_frame, %" PRIu64 " after a signal, %" PRIu64
		" by frame pointers: %" PRIu64 " process not known, %" PRIu64 " no mapping, %" PRIu64
		" no table, %" PRIu64 " rule not run, %" PRIu64 " past a stack switch)",
		(uint64_t)c.frames, (uint64_t)c.first_frames,
		(uint64_t)(c.table_frames - c.debug_frame_frames), (uint64_t)c.debug_frame_frames,
		(uint64_t)c.signal_frames, (uint64_t)c.fp_frames, (uint64_t)c.no_process_frames,
		(uint64_t)c.no_mapping, (uint64_t)c.no_table, (uint64_t)c.expression,
		(uint64_t)c.stack_switch);
	rt_info("ringtrace: user frames by the walk's quick path: %" PRIu64
		" (a row kept by pc or the frame before's, stepped within the stack already read)",
		(uint64_t)c.quick_frames);
	rt_info("ringtrace: user stacks with a frame in a file whose table was not loaded yet: "
		"%" PRIu64 " copied (unwound when read, as dwarf's), %" PRIu64
		" walked by frame pointers there (over --stack-copy-budget, or none)",
		(uint64_t)c.stacks_copied, (uint64_t)c.copies_over_budget);
	rt_info("ringtrace: user stacks that met a file without its table: %" PRIu64
		" with none (walked by frame pointers there), %" PRIu64 " with one not loaded (%" PRIu64
		" copied, %" PRIu64 " walked by frame pointers there)",
		(uint64_t)c.stacks_no_table, (uint64_t)c.stacks_pending, (uint64_t)c.stacks_copied,
		unwind_stacks_walked_pending(&c));
	rt_info("ringtrace: mappings put in by the kernel side, at exec and from the VMA of a pc in none known: %" PRIu64
		" (%" PRIu64 " left to the side-band: no room, overlapping, or written at once); "
		"processes it began before the side-band told of them: %" PRIu64,
		(uint64_t)c.kernel_mappings, (uint64_t)c.kernel_mappings_left,
		(uint64_t)c.kernel_processes);
}
