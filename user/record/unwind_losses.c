/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_losses.c: the one line at the end of a recording when the unwinder
 * cost stacks (a sample's user stack met a file without its table and was
 * walked by frame pointers there): the share of the user stacks, why, and
 * the option that helps; nothing when none were. */
#include <inttypes.h>
#include <stdio.h>

#include "lib/log.h"
#include "record/unwind_tables.h"

/* Stacks walked by frame pointers in a program's first instants (its file's
 * table not ready yet, beyond --stack-copy-budget's copies) are expected
 * where new programs start on a busy machine (1-2% of the stacks while
 * others build on this project's 2-CPU VM, 10% in a first recording whose
 * tables are all compiled): shown from this share of the user stacks on,
 * counted by -v always. */
#define NOT_READY_SHOWN_PERCENT 5
/* Stacks through a file that has no table (a stripped or hand-written
 * program, which no option changes) are told from this share on: a stray
 * one (0.1% of the stacks beside others' work here) is -v's. */
#define NO_TABLE_SHOWN_PERCENT 1

/* "3.2% of the user stacks (412 of 12870)", singular where it is one. */
static void stacks_share(char *out, size_t size, uint64_t n, uint64_t samples)
{
	double pct = samples ? 100.0 * (double)n / (double)samples : 0;

	if (n == 1)
		rt_format(out, size, "1 user stack of %" PRIu64 " (%.2g%%)", samples, pct);
	else
		rt_format(out, size, "%.*f%% of the user stacks (%" PRIu64 " of %" PRIu64 ")",
			  pct < 0.1 ? 2 : 1, pct, n, samples);
}

/* "64 MiB" or "1.5 GiB". */
static void size_text(char *out, size_t size, uint64_t bytes)
{
	if (bytes >= 1ULL << 30)
		rt_format(out, size, "%.1f GiB", (double)bytes / (double)(1ULL << 30));
	else if (bytes >= 1ULL << 20)
		rt_format(out, size, "%.0f MiB", (double)bytes / (double)(1ULL << 20));
	else
		rt_format(out, size, "%.0f KiB", (double)bytes / 1024.0);
}

static const char *met(uint64_t stacks)
{
	return stacks == 1 ? "it met" : "they met";
}

static const char *were(uint64_t stacks)
{
	return stacks == 1 ? "was" : "were";
}

/* (unwind_tables.h) */
uint64_t unwind_stacks_walked_pending(const struct rt_unwind_counters *c)
{
	return c->stacks_pending > c->stacks_copied ? c->stacks_pending - c->stacks_copied : 0;
}

void unwind_print_losses(const struct unwind_tables *t, const struct rt_unwind_counters *c)
{
	uint64_t walked = unwind_stacks_walked_pending(c);
	char share[96], now[32];

	if (!c->samples)
		return;
	if (walked && t->files_without_room) {
		stacks_share(share, sizeof(share), walked, c->samples);
		size_text(now, sizeof(now), t->mem);
		rt_info("ringtrace: %s may be cut short: %" PRIu64 " %s found no room for %s "
			"unwind table%s, and the stacks through %s were walked by frame pointers "
			"there; raise --unwind-mem (now %s)",
			share, t->files_without_room, t->files_without_room == 1 ? "file" : "files",
			t->files_without_room == 1 ? "its" : "their",
			t->files_without_room == 1 ? "" : "s",
			t->files_without_room == 1 ? "it" : "them", now);
	} else if (walked && walked * 100 >= c->samples * NOT_READY_SHOWN_PERCENT) {
		stacks_share(share, sizeof(share), walked, c->samples);
		size_text(now, sizeof(now), t->copy_budget);
		if (t->copy_budget)
			rt_info("ringtrace: %s may be cut short: %s a file whose unwind table "
				"was not ready yet, beyond the copies --stack-copy-budget allows (now %s "
				"a second on a CPU), and %s walked by frame pointers there; raise "
				"--stack-copy-budget",
				share, met(walked), now, were(walked));
		else
			rt_info("ringtrace: %s may be cut short: %s a file whose unwind table "
				"was not ready yet, and %s walked by frame pointers there; give "
				"--stack-copy-budget a size (now 0: no copies) to copy them instead",
				share, met(walked), were(walked));
	}
	if (c->stacks_no_table && c->stacks_no_table * 100 >= c->samples * NO_TABLE_SHOWN_PERCENT) {
		stacks_share(share, sizeof(share), c->stacks_no_table, c->samples);
		rt_info("ringtrace: %s may be cut short: %s a file that has no unwind "
			"table (no .eh_frame, or one ringtrace cannot use: -v counts the files by "
			"why), and %s walked by frame pointers there; no option changes that",
			share, met(c->stacks_no_table), were(c->stacks_no_table));
	}
}
