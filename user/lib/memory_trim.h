/* SPDX-License-Identifier: GPL-2.0-only */
/* memory_trim.h: the heap's free memory handed back to the kernel
 * (malloc_trim), one thread at a time. */
#ifndef RINGTRACE_MEMORY_TRIM_H
#define RINGTRACE_MEMORY_TRIM_H

/* malloc_trim(0), never from two threads at once: its first call sets up
 * glibc's allocator where nothing has (a sanitized build's malloc is not
 * glibc's), and two threads doing that at once crashed one (test_python_exit,
 * ASan, 2026-12-05: mtrim reading a bin not yet set up). */
void memory_trim(void);

#endif
