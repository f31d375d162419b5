/* SPDX-License-Identifier: GPL-2.0-only */
/* process_memory.h: reads another process's memory (process_vm_readv): bytes
 * into the caller's buffer, strings a page at a time, never more than asked. */
#ifndef RINGTRACE_PROCESS_MEMORY_H
#define RINGTRACE_PROCESS_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* len bytes at addr of process pid into buf: 0, or -errno (-ESRCH gone,
 * -EFAULT not all of it mapped, -EPERM not ours to read). */
int process_memory_read(uint32_t pid, uint64_t addr, void *buf, size_t len);

/* The 64-bit word at addr of pid into *v: as process_memory_read. */
static inline int process_memory_u64(uint32_t pid, uint64_t addr, uint64_t *v)
{
	return process_memory_read(pid, addr, v, sizeof(*v));
}

/* The NUL-terminated string at addr of pid into buf (len >= 1, always
 * terminated), read a page at a time (one that ends before an unmapped page
 * reads): its length; -ENAMETOOLONG if no NUL came within len - 1 bytes (buf
 * holds those); -errno if it cannot be read. */
ssize_t process_memory_string(uint32_t pid, uint64_t addr, char *buf, size_t len);

#endif
