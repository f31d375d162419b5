/* synthesize.h: side-band records for what existed before recording began:
 * the kernel's text mapping and the COMM and MMAP2 of every live process. */
#ifndef RINGTRACE_SYNTHESIZE_H
#define RINGTRACE_SYNTHESIZE_H

#include <stddef.h>
#include <stdint.h>

#include "byte_buffer.h"

/* Appends PERF_RECORD_MMAP "[kernel.kallsyms]_text" at _text from /proc/kallsyms.
 * Returns 0, or -1 with err set (e.g. addresses hidden by kptr_restrict). */
int synthesize_kernel_mmap(struct byte_buffer *b, uint64_t sample_id_type, char *err,
			   size_t errlen);

/* Appends a COMM for every thread and an MMAP2 for every executable mapping of
 * every process in /proc, with time 0. Processes that exit meanwhile are
 * skipped. Returns the number of processes, or -1 if memory ran out. */
long synthesize_processes(struct byte_buffer *b, uint64_t sample_id_type);

#endif
