/* SPDX-License-Identifier: GPL-2.0-only */
/* dwarf_unwind.h: unwinds a sample's user stack from its registers and stack copy
 * (--call-graph dwarf) with libdw's dwfl and the CFI of the mapped files. */
#ifndef RINGTRACE_DWARF_UNWIND_H
#define RINGTRACE_DWARF_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perf_record.h"
#include "symbols/address_space.h"

struct unwinder;

/* An unwinder over the processes of as (which it only reads): one dwfl per
 * process, each mapped file reported once, its CFI kept with it. NULL if
 * memory ran out. */
struct unwinder *unwinder_new(struct address_space *as);
void unwinder_free(struct unwinder *u);

/* The user frames of sample s (of pid s->pid, thread s->tid) from its
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER, leaf first, into ips (at
 * most max), as perf's unwind-libdw gives them: the registers' ip, then each
 * caller's return address less one (return_addresses: the return address
 * itself, as a callchain holds it). Returns how many; 0 if the sample has no
 * user registers. A stack that cannot be unwound further ends with the last
 * frame found. */
size_t unwinder_user_frames(struct unwinder *u, const struct perf_sample *s, bool return_addresses,
			    uint64_t *ips, size_t max);

/* The functions the debug information of file d names at vaddr, an address
 * in the file's own (its symbols'), as perf's inlined frames name them
 * (debug_names.h): the innermost inlined one first, the function holding
 * them last; at most max into names, each malloc'd (the caller frees
 * them). The file is found and its debug information read as for unwinding
 * (the file's own, or by build-id under /usr/lib/debug), once a file.
 * Returns how many: 0 without debug information there. */
size_t unwinder_inline_names(struct unwinder *u, const struct dso *d, uint64_t vaddr,
			     char **names, size_t max);

#endif
