/* SPDX-License-Identifier: GPL-2.0-only */
/* hotspot_proc.h: one JVM of a -g recording, and a libjvm.so looked at, as
 * hotspot_procs (tracking them, naming their methods) and hotspot_reader
 * (reading the layout of those started during the recording) share them. */
#ifndef RINGTRACE_HOTSPOT_PROC_H
#define RINGTRACE_HOTSPOT_PROC_H

#include <stddef.h>

#include "record/hotspot_procs.h"
#include "record/unwind_file_key.h"
#include "symbols/hotspot_elf.h"

/* A file looked at: libjvm.so with its layout's exports (ok) or not. */
struct hotspot_file {
	struct file_key key;
	bool ok;
	struct hotspot_elf elf;
};

struct hotspot_proc {
	struct runtime_proc base;    /* named: address -> itself, methods tried */
	bool pending;                /* its layout still to be read (hotspot_reader) */
	struct rt_hotspot_process hp; /* what the BPF side is told */
};
_Static_assert(offsetof(struct hotspot_proc, base) == 0, "a process freed as its struct runtime_proc");

/* The walk's layout of the JVM pid, whose libjvm.so f is loaded bias above
 * its addresses: 0, or -errno (h->last_error says why; h->base.lock not
 * needed). */
int hotspot_read_layout(struct hotspot_procs *h, uint32_t pid, const struct hotspot_file *f,
			uint64_t bias, struct hotspot_walk_layout *l);
/* pr a JVM for the walk with layout l (h->base.lock held): 0, or -ENOSPC (no
 * entry left for its offsets). */
int hotspot_make_live(struct hotspot_procs *h, struct hotspot_proc *pr,
		      const struct hotspot_walk_layout *l);

/* hotspot_reader.c, h->base.lock held: pid's layout to be read (f loaded bias
 * above its addresses): 0, or -ENOSPC (HOTSPOT_PENDING_MAX pending). */
int hotspot_reader_queue(struct hotspot_procs *h, uint32_t pid, const struct hotspot_file *f,
			 uint64_t bias);
/* ...pid gone: not to be read. */
void hotspot_reader_forget(struct hotspot_procs *h, uint32_t pid);
/* Ends the reader's thread, if started (h->base.lock not held). */
void hotspot_reader_stop(struct hotspot_procs *h);

#endif
