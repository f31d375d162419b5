/* SPDX-License-Identifier: GPL-2.0-only */
/* trace_filter.h: record --filter: an ftrace filter expression over a
 * tracepoint's fields, compiled into the comparisons the BPF side runs. */
#ifndef RINGTRACE_CAPTURE_TRACE_FILTER_H
#define RINGTRACE_CAPTURE_TRACE_FILTER_H

#include <stddef.h>

#include "capture/event_spec.h"
#include "filter_program.h"

/*
 * Compiles expr, in the syntax of the kernel's event filters (perf record
 * --filter, Documentation/trace/events.rst): FIELD OP VALUE joined by &&, ||,
 * ! and parentheses; numbers compare with == != < <= > >= & (a bit set),
 * strings (char arrays, __data_loc strings, char * fields read as kernel
 * strings, or user strings with FIELD.ustring) with ==, != and ~ (a glob
 * of * and ?), the value quoted. FIELD is a field of the tracepoint's format
 * (format_text), common_pid and the other common fields, or cpu, comm (the
 * current task's). 0, or -EINVAL with err naming the fault and its column
 * ("at column 7: no field prev_stat in sched:sched_switch"), -E2BIG past
 * RT_FILTER_MAX_PREDS comparisons.
 */
int trace_filter_compile(const char *expr, const char *format_text, const char *event,
			 struct rt_filter *out, char *err, size_t errlen);

/* --filter EXPR after the -e that added the events: EXPR given to every
 * event the last -e added (its names, all those of its globs), as perf gives
 * it to "the last glob". 0, or -EINVAL with err set (no -e before it, not a
 * tracepoint, a second --filter for the same events). */
int trace_filter_attach(struct event_desc *events, unsigned int nr, const char *expr, char *err,
			size_t errlen);

/* Compiles each event's --filter against its tracepoint's format from
 * tracefs into ev->filter (malloc'd; trace_filter_free_all frees them). 0,
 * -EINVAL for a fault in an expression, or -errno with err set. */
int trace_filter_compile_all(struct event_desc *events, unsigned int nr, char *err, size_t errlen);
void trace_filter_free_all(struct event_desc *events, unsigned int nr);

#endif
