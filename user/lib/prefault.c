/* SPDX-License-Identifier: GPL-2.0-only */
/* prefault.c: maps the pages of a freshly allocated range in one call
 * (MADV_POPULATE_WRITE) instead of one page fault each. */
#include "lib/prefault.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this, the faults cost less than finding out. */
#define PREFAULT_MIN (256u << 10)

void prefault(void *p, size_t len)
{
	uintptr_t page, start, end;

	if (len < PREFAULT_MIN)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + len) & ~(page - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}
