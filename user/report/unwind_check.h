/* SPDX-License-Identifier: GPL-2.0-only */
/* unwind_check.h: report --unwind-check: how well the in-kernel unwinder's user
 * frames agree with libdw's unwinding of the same samples' copied stacks. */
#ifndef RINGTRACE_UNWIND_CHECK_H
#define RINGTRACE_UNWIND_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

/*
 * Reads o->input, a recording made with --call-graph ehframe+dwarf (each
 * sample holds the user frames the kernel unwound from .eh_frame tables and
 * the user registers and stack copy that --call-graph dwarf writes), unwinds
 * each sample's copy with libdw as report does for dwarf recordings, and
 * compares the two frame by frame: the n-th user frame of each agrees when
 * it is the same address (a caller's return address, or that less one as
 * libdw gives it). Prints to out, per DSO (of libdw's frame, else the
 * kernel's), the frames compared, those that agree, those only one side
 * found and those that differ, and the total. Only samples of o->comm_filter
 * and o->pid_filter when set. 0, -errno with err set, or REPORT_BAD_REQUEST (no
 * sample holds both).
 */
int report_unwind_check_run(const struct report_options *o, FILE *out, char *err, size_t errlen);

#endif
