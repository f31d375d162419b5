/* SPDX-License-Identifier: GPL-2.0-only */
/* process_memory.c: reads another process's memory (process_vm_readv): bytes
 * into the caller's buffer, strings a page at a time, never more than asked. */
#include "sys/process_memory.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#define PAGE_BYTES 4096u

int process_memory_read(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

ssize_t process_memory_string(uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	size_t got = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	while (got < len - 1) {
		/* up to the end of addr's page: a string near the end of
		 * its mapping reads though the next page is not mapped */
		size_t in_page = PAGE_BYTES - (size_t)((addr + got) % PAGE_BYTES);
		size_t want = len - 1 - got < in_page ? len - 1 - got : in_page;
		int r = process_memory_read(pid, addr + got, buf + got, want);
		char *nul;

		if (r) {
			buf[got] = '\0';
			return r;
		}
		nul = memchr(buf + got, '\0', want);
		if (nul)
			return nul - buf;
		got += want;
	}
	buf[len - 1] = '\0';
	return -ENAMETOOLONG;
}
